package dev.idemlab.lab.cli;

import dev.idemlab.lab.scenario.ProviderTimeoutScenario;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.List;

/** {@code lab scenario provider-timeout}: failures are not cached. */
@Command(name = "provider-timeout", mixinStandardHelpOptions = true,
        description = "The provider times out on the first call before charging; the retry with the same key charges once.")
final class ProviderTimeoutCommand extends AbstractScenarioCommand {

    @Option(names = "--policy", paramLabel = "POLICY", defaultValue = "wait",
            description = "In-flight policy: run, wait, raise or all. Default: ${DEFAULT-VALUE}.")
    PolicyChoice policy;

    @Override
    List<ScenarioRunner.Plan> plan() {
        return List.of(new ScenarioRunner.Plan(new ProviderTimeoutScenario(), policy.policies()));
    }
}
