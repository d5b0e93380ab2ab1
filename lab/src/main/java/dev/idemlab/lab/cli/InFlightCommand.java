package dev.idemlab.lab.cli;

import dev.idemlab.lab.scenario.HttpInFlightScenario;
import dev.idemlab.lab.scenario.InFlightScenario;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.List;

/** {@code lab scenario in-flight}: the post's first table. */
@Command(name = "in-flight", mixinStandardHelpOptions = true,
        description = "Caller A charges; callers B..N send the identical request with the same key while A is "
                + "still inside the provider. Under run (a result cache) every caller gets ch_1 and the card is "
                + "charged twice; under wait and raise it is charged once.")
final class InFlightCommand extends AbstractScenarioCommand {

    @Option(names = "--policy", paramLabel = "POLICY", defaultValue = "all",
            description = "In-flight policy: run, wait, raise or all. Default: ${DEFAULT-VALUE}.")
    PolicyChoice policy;

    @Mixin
    RaceOptions raceOptions;

    @Mixin
    TransportOption transport;

    @Override
    RaceOptions race() {
        return raceOptions;
    }

    @Override
    List<ScenarioRunner.Plan> plan() {
        return List.of(new ScenarioRunner.Plan(transport.http() ? new HttpInFlightScenario() : new InFlightScenario(),
                policy.policies()));
    }
}
