package dev.idemlab.lab.cli;

import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.infra.StoreBackends;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.lab.report.ReportFormat;
import dev.idemlab.lab.scenario.CallThrough;
import dev.idemlab.lab.scenario.ProviderChoice;
import dev.idemlab.lab.scenario.ScenarioContext;
import dev.idemlab.lab.scenario.ScenarioRun;
import dev.idemlab.lab.scenario.ScenarioSettings;
import dev.idemlab.lab.scenario.Scenario;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * What every {@code lab scenario ...} command does: check the options, provision the store, run
 * the plan, render the report and say where it went. Subclasses only say which scenarios to run.
 */
abstract class AbstractScenarioCommand implements Callable<Integer> {

    /** How the help starts the description of an option a scenario sets for itself. */
    private static final String FIXED = "Set by this scenario for itself";

    @Spec
    CommandSpec spec;

    @Mixin
    ScenarioOptions options;

    /** The scenarios and policies to run. */
    abstract List<ScenarioRunner.Plan> plan();

    /** The race's options, for commands that run the in-flight race; {@code null} otherwise. */
    RaceOptions race() {
        return null;
    }

    /**
     * Whether this command runs one scenario the user named: then an option the scenario sets for itself
     * is refused, and a store that cannot stage any of its variants is a usage error rather than a SKIP.
     * {@code scenario all} passes the options on to the scenarios that take them, and skips what a store
     * cannot stage.
     */
    boolean runsOneScenario() {
        return true;
    }

    /** How the callers charge: directly, unless the command takes {@code --call-through}. */
    CallThrough callThrough() {
        return CallThrough.COORDINATOR;
    }

    /** Refuses {@code --call-through proxy} where a scenario's charges or a policy cannot go through the proxy. */
    private static void refuseWhatCannotCallThroughProxy(List<ScenarioRunner.Plan> plan) {
        for (ScenarioRunner.Plan step : plan) {
            String reason = step.scenario().cannotCallThroughProxy();
            if (reason != null) {
                throw new UsageException("--call-through proxy: " + step.scenario().name() + " cannot charge through "
                        + "Idempotency.proxy here: " + reason + "; leave --call-through out");
            }
            if (step.policies().contains(LabPolicy.RUN)) {
                throw new UsageException("--call-through proxy: " + CallThrough.NO_PROXY_FOR_THE_RESULT_CACHE
                        + "; give --policy wait or raise" + (step.policies().size() > 1 ? " (all includes run)" : ""));
            }
        }
    }

    /** Refuses a store that cannot stage this command's scenario at all. */
    void checkStore(String store) { }

    /** The store this command runs on when {@code named} is asked for; the same one unless it says otherwise. */
    String storeFor(String named) {
        return named;
    }

    /**
     * The scenarios this command runs when given no option of its own, for its help: a command whose
     * plan needs parsed options says none.
     */
    List<Scenario> scenariosForHelp() {
        return List.of();
    }

    /**
     * Shows each option that this command's scenario sets for itself as refused, not with a default it
     * would never use ({@code scenario lease-overrun --help} listed {@code --latency-ms} as "Default: 300"
     * while refusing it). Applied to every scenario command under {@code commandLine}.
     */
    static void describeFixedOptions(CommandLine commandLine) {
        for (CommandLine sub : new LinkedHashSet<>(commandLine.getSubcommands().values())) {
            describeFixedOptions(sub);
        }
        if (!(commandLine.getCommand() instanceof AbstractScenarioCommand command) || !command.runsOneScenario()) {
            return;
        }
        CommandSpec spec = commandLine.getCommandSpec();
        for (Scenario scenario : command.scenariosForHelp()) {
            for (String name : scenario.fixedOptions()) {
                OptionSpec option = spec.findOption(name);
                if (option != null && !option.description()[0].startsWith(FIXED)) {
                    spec.remove(option);
                    spec.addOption(OptionSpec.builder(option)
                            .description(FIXED + ": " + scenario.summary() + ". Refused here.").build());
                }
            }
        }
    }

    private void refuseFixedOptions(List<ScenarioRunner.Plan> plan) {
        for (ScenarioRunner.Plan step : plan) {
            for (String option : step.scenario().fixedOptions()) {
                if (spec.commandLine().getParseResult().hasMatchedOption(option)) {
                    throw new UsageException(option + ": " + step.scenario().name() + " sets it for itself ("
                            + step.scenario().summary() + "); leave it out");
                }
            }
            ProviderChoice fixedProvider = step.scenario().fixedProvider();
            if (fixedProvider != null && spec.commandLine().getParseResult().hasMatchedOption("--provider")
                    && options.provider.choice() != fixedProvider) {
                throw new UsageException("--provider " + options.provider.provider + ": " + step.scenario().name()
                        + " (" + step.scenario().summary() + ") always reaches the provider "
                        + (fixedProvider == ProviderChoice.HTTP ? "over HTTP, from a holder in a child JVM; leave "
                        + "--provider out, or give http" : "in this process; leave --provider out, or give in-process"));
            }
        }
    }

    /** Text after the runs' report (not in JSON, which goes to standard error instead): a summary over them. */
    String summary(List<ScenarioRun> runs, ScenarioContext context) throws InterruptedException {
        return "";
    }

    @Override
    public Integer call() throws InterruptedException {
        ScenarioSettings settings = options.settings(race());
        ProviderChoice providerChoice = options.provider.choice();
        String storeName = storeFor(options.store.validatedStore());
        checkStore(storeName);
        ProvisioningOptions provisioning = options.store.provisioning(List.of(storeName));
        options.output.validate();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        CallThrough callThrough = callThrough();
        List<ScenarioRunner.Plan> plan = plan();
        if (runsOneScenario()) {
            refuseFixedOptions(plan);
        }
        if (callThrough == CallThrough.PROXY) {
            refuseWhatCannotCallThroughProxy(plan);
        }
        int steps = ScenarioRunner.steps(plan);
        // A run of several steps reports each; a single one stays quiet unless a person is watching.
        Progress progress = steps > 1 ? new Progress(err, Progress.onTerminal(), steps) : null;
        try (StoreBackend backend = StoreBackends.open(storeName, provisioning)) {
            ScenarioContext context = new ScenarioContext(backend, settings,
                    ((LabCommand) spec.root().userObject()).coordinators(), providerChoice, callThrough);
            ScenarioRunner runner = new ScenarioRunner(context, err, progress);
            runner.say("using " + backend.server().describe());
            List<ScenarioRun> runs = new ArrayList<>();
            List<ScenarioRunner.Skipped> skipped;
            try {
                skipped = runner.run(plan, run -> {
                    runs.add(run);
                    return "done";
                });
            } finally {
                StoreOptions.cleanUp(backend, err);
            }
            if (progress != null) {
                progress.close();
            }
            Map<ScenarioRunner.Skipped, Integer> variantsSkipped = ScenarioRunner.countVariants(skipped);
            if (runsOneScenario() && runs.isEmpty() && !variantsSkipped.isEmpty()) {
                // Nothing the user asked for can run here: a usage error naming why, not a report of nothing.
                throw new UsageException(variantsSkipped.keySet().iterator().next().reason());
            }
            StringBuilder report = new StringBuilder(options.output.format.render(runs));
            variantsSkipped.forEach((skip, count) -> {
                String line = skip.scenario() + (count > 1 ? " (" + count + " variants)" : "") + " skipped on "
                        + storeName + ": " + skip.reason();
                if (options.output.format == ReportFormat.JSON) {
                    err.println("lab: " + line);
                } else {
                    report.append('\n').append(line).append('\n');
                }
            });
            String summary = summary(runs, context);
            if (!summary.isEmpty()) {
                if (options.output.format == ReportFormat.JSON) {
                    err.print(summary);
                    err.flush();
                } else {
                    report.append('\n').append(summary);
                }
            }
            options.output.emit(report.toString(), out);
        } finally {
            if (progress != null) {
                progress.close();
            }
        }
        return 0;
    }
}
