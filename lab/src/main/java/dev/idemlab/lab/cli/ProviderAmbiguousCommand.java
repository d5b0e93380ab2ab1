package dev.idemlab.lab.cli;

import dev.idemlab.lab.scenario.ProviderAmbiguousScenario;
import dev.idemlab.lab.scenario.Scenario;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.List;

/** {@code lab scenario provider-ambiguous}. */
@Command(name = "provider-ambiguous", mixinStandardHelpOptions = true,
        description = "The provider charges, then its reply is lost (a timeout); the client retries. Without a "
                + "downstream key the provider charges again; with the coordinator's downstream key passed to a "
                + "provider that deduplicates, once.")
final class ProviderAmbiguousCommand extends FailureScenarioCommand {

    @Option(names = "--downstream-key", paramLabel = "on|off",
            description = "Pass the coordinator's downstream key to the provider (which then deduplicates) or not. "
                    + "Default: both, off first.")
    String downstreamKey;

    @Override
    List<Scenario> variants() {
        return Toggle.variants("--downstream-key", downstreamKey).stream()
                .<Scenario>map(ProviderAmbiguousScenario::new).toList();
    }
}
