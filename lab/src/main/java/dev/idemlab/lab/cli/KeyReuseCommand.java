package dev.idemlab.lab.cli;

import dev.idemlab.lab.scenario.CallThrough;
import dev.idemlab.lab.scenario.KeyReuseScenario;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.util.List;

/** {@code lab scenario key-reuse}: the key is not the request. */
@Command(name = "key-reuse", mixinStandardHelpOptions = true,
        description = "Sends the same key with the same amount (replayed), then with amount 5 (refused as key reuse).")
final class KeyReuseCommand extends AbstractScenarioCommand {

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
        return List.of(new ScenarioRunner.Plan(new KeyReuseScenario(), policy.choice.policies()));
    }
}
