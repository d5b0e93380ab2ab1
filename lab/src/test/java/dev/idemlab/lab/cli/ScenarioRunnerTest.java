package dev.idemlab.lab.cli;

import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.infra.StoreBackends;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.lab.scenario.CannotStageException;
import dev.idemlab.lab.scenario.CoordinatorFactory;
import dev.idemlab.lab.scenario.Scenario;
import dev.idemlab.lab.scenario.ScenarioContext;
import dev.idemlab.lab.scenario.ScenarioRun;
import dev.idemlab.lab.scenario.ScenarioSettings;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Only a scenario that says it cannot be staged on the store is skipped: any other exception out of a
 * scenario is a failure of the run, never a SKIP that lets {@code lab check} pass.
 */
class ScenarioRunnerTest {

    @Test
    void aScenarioThatCannotBeStagedIsSkippedWithItsReasonForEveryPolicyLeft() throws Exception {
        try (StoreBackend memory = StoreBackends.open("memory", ProvisioningOptions.defaults())) {
            List<ScenarioRunner.Skipped> skipped = runner(memory).run(List.of(new ScenarioRunner.Plan(
                    throwing(new CannotStageException("needs a server")), List.of(LabPolicy.WAIT, LabPolicy.RAISE))),
                    run -> "PASS");
            assertThat(skipped).containsExactly(new ScenarioRunner.Skipped("throws", "needs a server"));
        }
    }

    @Test
    void aBugInsideAScenarioIsNotMistakenForAStoreThatCannotStageIt() throws Exception {
        try (StoreBackend memory = StoreBackends.open("memory", ProvisioningOptions.defaults())) {
            // What List.of(...).add throws: the JDK's own UnsupportedOperationException, with no message.
            ScenarioRunner runner = runner(memory);
            assertThatThrownBy(() -> runner.run(List.of(new ScenarioRunner.Plan(
                    throwing(new UnsupportedOperationException()), List.of(LabPolicy.WAIT))), run -> "PASS"))
                    .isInstanceOf(UnsupportedOperationException.class);
        }
    }

    private static ScenarioRunner runner(StoreBackend backend) {
        return new ScenarioRunner(new ScenarioContext(backend, ScenarioSettings.defaults(), CoordinatorFactory.LIBRARY),
                new PrintWriter(new StringWriter()), null);
    }

    private static Scenario throwing(RuntimeException failure) {
        return new Scenario() {
            @Override
            public String name() {
                return "throws";
            }

            @Override
            public String summary() {
                return "a scenario that throws " + failure.getClass().getSimpleName();
            }

            @Override
            public ScenarioRun run(ScenarioContext context, LabPolicy policy) {
                throw failure;
            }
        };
    }
}
