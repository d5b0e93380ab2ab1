package dev.idemlab.lab.cli;

import dev.idemlab.lab.scenario.CoordinatorFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code lab}: the idempotency lab. Subcommands run the post's experiments and the regression gate.
 */
@Command(name = "lab",
        mixinStandardHelpOptions = true,
        versionProvider = LabCommand.Version.class,
        description = "Reproduces the Idempotency-Key race: a result cache charges a card twice when a client "
                + "retries while the first request is still running; a reservation with a lease charges once. "
                + "Every figure comes from a counting fake payment provider's ledger.",
        subcommands = {ScenarioCommand.class, CheckCommand.class, LoadCommand.class, PeersCommand.class, FaultsCommand.class, NemesisCommand.class,
                CostCommand.class, SweepCommand.class, ConsumerLoadCommand.class,
                ServeCommand.class, ProbeCommand.class,
                CommandLine.HelpCommand.class},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:ok", "1:a check failed, or a server could not be had", "2:usage error"})
public final class LabCommand implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private final CoordinatorFactory coordinators;

    LabCommand(CoordinatorFactory coordinators) {
        this.coordinators = coordinators;
    }

    /** The command line as {@code lab.jar} runs it. */
    public static CommandLine commandLine() {
        return commandLine(CoordinatorFactory.LIBRARY);
    }

    /** The command line with another coordinator under test: how the gate's own tests break it on purpose. */
    public static CommandLine commandLine(CoordinatorFactory coordinators) {
        CommandLine commandLine = new CommandLine(new LabCommand(coordinators));
        commandLine.setCaseInsensitiveEnumValuesAllowed(true);
        commandLine.setExecutionExceptionHandler(new FailureHandler());
        commandLine.setParameterExceptionHandler(FailureHandler::handleParameterException);
        AbstractScenarioCommand.describeFixedOptions(commandLine);
        return commandLine;
    }

    CoordinatorFactory coordinators() {
        return coordinators;
    }

    /**
     * {@code lab} alone names every command it has, read from the registered subcommands, so that a
     * command added later is listed without anyone retyping the list.
     */
    @Override
    public void run() {
        String commands = spec.commandLine().getSubcommands().keySet().stream()
                .filter(name -> !name.equals("help"))
                .collect(java.util.stream.Collectors.joining(", "));
        throw new CommandLine.ParameterException(spec.commandLine(),
                "missing command: one of " + commands + " (lab help COMMAND says what each does)");
    }

    /** Reads the version the build wrote into the jar's manifest. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = LabCommand.class.getPackage().getImplementationVersion();
            return new String[] {"lab " + (version == null ? "(development build)" : version),
                    "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")"};
        }
    }
}
