package dev.idemlab.lab.cli;

import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.lab.scenario.CoordinatorFactory;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The gate must be able to fail: a coordinator that double-charges under WAIT makes it exit 1. */
class CheckGateTest {

    @Test
    void theLibrarysCoordinatorPassesTheGate() {
        // The rows the two sabotaged coordinators below fail; the whole gate runs as `lab check` after the build.
        LabRun run = LabRun.of("check", "--stores", "memory", "--scenarios", "in-flight");
        assertThat(run.exitCode()).as(run.out()).isZero();
        assertThat(run.out()).contains("PASS memory    in-flight/run").contains("PASS memory    in-flight/wait")
                .contains("PASS memory    in-flight/run (stripe-java 33.0.0)").contains("check: 6 passed, 0 failed");
    }

    @Test
    void aCoordinatorThatDoubleChargesUnderWaitFailsTheGate() {
        // A result cache dressed up as WAIT: exactly the bug the post is about.
        CoordinatorFactory cacheCalledWait = (store, policy, config) -> CoordinatorFactory.LIBRARY.create(store,
                policy == LabPolicy.WAIT ? LabPolicy.RUN : policy, config);
        LabRun run = LabRun.with(cacheCalledWait, "check", "--stores", "memory", "--scenarios", "in-flight");
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.out()).contains("FAIL memory    in-flight/wait")
                .contains("promises exactly-once but the provider charged 2 times");
    }

    @Test
    void theRaceOnAConsumerGroupIsGatedOnABrokerTheCheckStartsAndNamesItsBroker() {
        // The adapter's WAIT given a result cache: the Kafka row must fail as the HTTP one does, the others pass.
        CoordinatorFactory cacheCalledWait = (store, policy, config) -> CoordinatorFactory.LIBRARY.create(store,
                policy == LabPolicy.WAIT ? LabPolicy.RUN : policy, config);
        LabRun run = LabRun.with(cacheCalledWait, "check", "--stores", "memory", "--scenarios", "redelivery");
        assertThat(run.exitCode()).as(run.out()).isEqualTo(1);
        assertThat(run.out()).containsPattern("(?m)^kafka Kafka 4\\.1\\.2 at 127\\.0\\.0\\.1:\\d+ ")
                .contains("PASS memory    redelivery/run").contains("PASS memory    redelivery/raise")
                .contains("FAIL memory    redelivery/wait").contains("promises exactly-once but the provider charged 2 times")
                .contains("PASS memory    redelivery/run (consumer protocol)")
                .contains("FAIL memory    redelivery/wait (consumer protocol)")
                .contains("check: 4 passed, 2 failed");
        // the crash table and DBOS's cells run on postgres only: asked of memory alone, the gate runs nothing
        LabRun none = LabRun.of("check", "--stores", "memory", "--scenarios", "redelivery-crash,dbos-crashed-worker");
        assertThat(none.exitCode()).isEqualTo(2);
        assertThat(none.err()).contains("runs on none of the stores asked for").doesNotContain("\tat ");
    }

    @Test
    void aCoordinatorThatNoLongerRacesUnderRunFailsTheGateToo() {
        // If RUN stopped double-charging the lab would have lost its point: the gate says so.
        CoordinatorFactory alwaysWait = (store, policy, config) -> CoordinatorFactory.LIBRARY.create(store,
                policy == LabPolicy.RUN ? LabPolicy.WAIT : policy, config);
        LabRun run = LabRun.with(alwaysWait, "check", "--stores", "memory", "--scenarios", "in-flight");
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.out()).contains("FAIL memory    in-flight/run").contains("the lab has lost its point")
                .contains("(only in-flight)").doesNotContain("key-reuse");
    }
}
