package dev.idemlab.lab.cli;

import dev.idemlab.lab.scenario.CallThrough;
import dev.idemlab.lab.scenario.ProviderTimeoutScenario;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.util.List;

/** {@code lab scenario provider-timeout}: failures are not cached. */
@Command(name = "provider-timeout", mixinStandardHelpOptions = true,
        description = "The provider times out on the first call before charging; the retry with the same key charges once.")
final class ProviderTimeoutCommand extends AbstractScenarioCommand {

    @Mixin
    WaitPolicyOption policy;

    @Mixin
    CallThroughOption callThrough;

    @Override
    CallThrough callThrough() {
        return callThrough.choice();
    }

    @Override
    List<ScenarioRunner.Plan> plan() {
        return List.of(new ScenarioRunner.Plan(new ProviderTimeoutScenario(), policy.choice.policies()));
    }
}
