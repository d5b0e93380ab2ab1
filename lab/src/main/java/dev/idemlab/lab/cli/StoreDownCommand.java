package dev.idemlab.lab.cli;

import dev.idemlab.lab.scenario.CallThrough;
import dev.idemlab.lab.scenario.StoreDownScenario;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.util.List;

/** {@code lab scenario store-down}: the store's server is really gone. */
@Command(name = "store-down", mixinStandardHelpOptions = true,
        description = "Stops the store's private server (or, with a user's URL, points where nothing listens) and "
                + "charges once. Failing open the charge runs anyway and the storage error is counted; "
                + "with --on-store-failure closed the call is refused and nothing is charged.")
final class StoreDownCommand extends AbstractScenarioCommand {

    @Mixin
    WaitPolicyOption policy;

    @Mixin
    CallThroughOption callThrough;

    @Override
    CallThrough callThrough() {
        return callThrough.choice();
    }

    @picocli.CommandLine.Option(names = "--downstream-key", paramLabel = "on|off",
            description = "Send the charge and then its retry, both failing open: with the coordinator's downstream key "
                    + "passed to a provider that deduplicates (on: one charge) or without it (off: two).")
    String downstreamKey;

    @Override
    void checkStore(String store) {
        if (store.equals("memory")) {
            throw new UsageException("store-down needs a store with a server (--store redis or postgres): "
                    + "the memory store lives in this process and cannot become unreachable");
        }
    }

    @Override
    List<ScenarioRunner.Plan> plan() {
        if (downstreamKey != null) {
            return Toggle.variants("--downstream-key", downstreamKey).stream()
                    .map(on -> new ScenarioRunner.Plan(new StoreDownScenario(on), policy.choice.policies())).toList();
        }
        return List.of(new ScenarioRunner.Plan(new StoreDownScenario(), policy.choice.policies()));
    }
}
