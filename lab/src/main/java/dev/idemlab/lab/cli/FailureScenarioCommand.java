package dev.idemlab.lab.cli;

import dev.idemlab.lab.scenario.Scenario;
import picocli.CommandLine.Mixin;

import java.util.List;

/** A failure-lab scenario command: each variant under the chosen policies. */
abstract class FailureScenarioCommand extends AbstractScenarioCommand {

    @Mixin
    FailurePolicyOption policy;

    /** The variants to run, unmitigated first. */
    abstract List<Scenario> variants();

    /** Every variant, as run without an option that narrows them. */
    @Override
    List<Scenario> scenariosForHelp() {
        try {
            return variants();
        } catch (RuntimeException needsParsedOptions) {
            return List.of();
        }
    }

    @Override
    List<ScenarioRunner.Plan> plan() {
        return variants().stream().map(s -> new ScenarioRunner.Plan(s, policy.policies())).toList();
    }
}
