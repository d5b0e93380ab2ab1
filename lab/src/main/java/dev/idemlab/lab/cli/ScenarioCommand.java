package dev.idemlab.lab.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code lab scenario}: the parent of the post's experiments. */
@Command(name = "scenario",
        mixinStandardHelpOptions = true,
        description = "Runs one of the post's experiments against a counting fake payment provider and prints "
                + "what every caller got beside what the provider's ledger charged.",
        subcommands = {InFlightCommand.class, KeyReuseCommand.class, ProviderTimeoutCommand.class,
                StoreDownCommand.class, LeaseOverrunCommand.class, CrashMidChargeCommand.class,
                ProviderAmbiguousCommand.class, ScopeCommand.class, LargeResultCommand.class, EvictionCommand.class, GhostReservationCommand.class,
                CrashMidOrderCommand.class, StaleHolderOrderCommand.class, FailoverCommand.class, RedeliveryCommand.class,
                RedeliveryCrashCommand.class, ShareLockExpiryCommand.class,
                AllScenariosCommand.class})
final class ScenarioCommand implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        // The subcommands themselves are the list, so that it never falls behind them.
        java.util.List<String> names = spec.subcommands().keySet().stream()
                .filter(name -> !name.equals("help")).toList();
        throw new CommandLine.ParameterException(spec.commandLine(), "missing scenario: one of "
                + String.join(", ", names.subList(0, names.size() - 1)) + " or " + names.get(names.size() - 1));
    }
}
