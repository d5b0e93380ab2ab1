package dev.idemlab.lab.cli;

import dev.idemlab.lab.scenario.Scenario;
import dev.idemlab.lab.scenario.Scenarios;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.util.List;

/** {@code lab scenario all}: every table of the post, in its order. */
@Command(name = "all", mixinStandardHelpOptions = true,
        description = "Runs the post's tables (in-flight under run, wait and raise, sent by the lab's own callers and "
                + "then by the Stripe Java SDK's own retries; key-reuse, provider-timeout and "
                + "store-down under wait), then the failure lab, each unmitigated variant beside its mitigation: "
                + "store-down --downstream-key, lease-overrun, crash-mid-charge, provider-ambiguous, scope, "
                + "large-result, eviction, ghost-reservation; then, on PostgreSQL, the local effects: crash-mid-order "
                + "and stale-holder-order (skipped on other stores). failover, redelivery, redelivery-crash and share-lock-expiry "
                + "(on a Kafka broker) run on their own (lab scenario failover, lab scenario redelivery, lab scenario "
                + "redelivery-crash, lab scenario share-lock-expiry).")
final class AllScenariosCommand extends AbstractScenarioCommand {

    @Override
    boolean runsOneScenario() {
        return false;
    }

    @Mixin
    RaceOptions raceOptions;

    @Override
    RaceOptions race() {
        return raceOptions;
    }

    @Override
    List<ScenarioRunner.Plan> plan() {
        return Scenarios.ALL.stream().map(AllScenariosCommand::planFor).toList();
    }

    private static ScenarioRunner.Plan planFor(Scenario scenario) {
        return new ScenarioRunner.Plan(scenario, scenario.policiesForAll());
    }
}
