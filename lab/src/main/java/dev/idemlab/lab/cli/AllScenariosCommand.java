package dev.idemlab.lab.cli;

import dev.idemlab.lab.scenario.Scenario;
import dev.idemlab.lab.scenario.Scenarios;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.util.List;

/** {@code lab scenario all}: every table of the post, in its order. */
@Command(name = "all", mixinStandardHelpOptions = true,
        description = "Runs every scenario: in-flight under run, wait and raise, then key-reuse, provider-timeout "
                + "and store-down under wait.")
final class AllScenariosCommand extends AbstractScenarioCommand {

    @Override
    boolean refusesFixedOptions() {
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
