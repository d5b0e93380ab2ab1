package dev.idemlab.lab.cli;

import dev.idemlab.lab.scenario.CrashMidChargeScenario;
import dev.idemlab.lab.scenario.Scenario;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.List;

/** {@code lab scenario crash-mid-charge}. */
@Command(name = "crash-mid-charge", mixinStandardHelpOptions = true,
        description = "The holder runs in a child JVM (store redis or postgres, the provider service over HTTP in the "
                + "lab's JVM) and is killed with SIGKILL after the provider charged, before the record was completed. "
                + "The retry after the lease charges again with --downstream-key off, and not with --downstream-key on "
                + "(the provider deduplicates). No child JVM is left running.")
final class CrashMidChargeCommand extends FailureScenarioCommand {

    @Option(names = "--downstream-key", paramLabel = "on|off",
            description = "Pass the coordinator's downstream key to the provider (which then deduplicates) or not. "
                    + "Default: both, off first.")
    String downstreamKey;

    @Override
    void checkStore(String store) {
        if (store.equals("memory")) {
            throw new UsageException("crash-mid-charge needs a store another process can reach (--store redis or "
                    + "postgres): its holder runs in a child JVM");
        }
    }

    @Override
    List<Scenario> variants() {
        return Toggle.variants("--downstream-key", downstreamKey).stream()
                .<Scenario>map(CrashMidChargeScenario::new).toList();
    }
}
