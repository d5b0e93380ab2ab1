package dev.idemlab.lab.scenario;

import dev.idemlab.lab.infra.LocalRedisCluster;
import dev.idemlab.lab.infra.MemoryBackend;
import dev.idemlab.lab.infra.Origin;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.RedisClusterBackend;
import dev.idemlab.lab.policy.LabPolicy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The failover experiment on a real local cluster from the bundled binary: without WAIT the retry
 * charges again, with WAIT and fail closed the ledger holds one charge; and every node the lab started,
 * the replacements included, is gone once the backend is closed.
 */
class FailoverScenarioTest {

    private static RedisClusterBackend backend;
    private static final List<Long> pids = new ArrayList<>();

    @BeforeAll
    static void startCluster() {
        backend = RedisClusterBackend.open(new ProvisioningOptions(null, Origin.CLUSTER, null, null));
    }

    @AfterAll
    static void stopClusterAndCheckEveryNodeIsGone() {
        LocalRedisCluster cluster = backend.localCluster().orElseThrow();
        cluster.nodes().forEach(node -> pids.add(node.pid()));
        backend.close();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(pids)
                .allSatisfy(pid -> assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty()));
    }

    private static ScenarioContext context() {
        return new ScenarioContext(backend, ScenarioSettings.defaults(), CoordinatorFactory.LIBRARY);
    }

    @Test
    void withoutWaitThePromotedReplicaNeverSawTheReservationAndTheRetryChargesAgain() {
        backend.localCluster().orElseThrow().nodes().forEach(node -> pids.add(node.pid()));
        ScenarioRun run = FailoverScenario.withoutWait().run(context(), LabPolicy.WAIT);
        assertThat(run.charges()).hasSize(2);
        assertThat(run.responses()).isEqualTo(run.charges());
        assertThat(run.settings()).containsEntry("recordAfterFailover", "absent");
        assertThat(Expectations.check(run).passed()).as(Expectations.check(run).line()).isTrue();
    }

    @Test
    void withWaitTheUnacknowledgedReservationIsAStorageErrorAndTheLedgerHoldsOneCharge() {
        backend.localCluster().orElseThrow().nodes().forEach(node -> pids.add(node.pid()));
        ScenarioRun run = FailoverScenario.withWait().run(context(), LabPolicy.WAIT);
        assertThat(run.charges()).hasSize(1);
        assertThat(run.responses()).containsExactly("IdempotencyStoreUnavailableException", run.charges().get(0));
        assertThat(run.storageErrors()).isPositive();
        assertThat(Expectations.check(run).passed()).as(Expectations.check(run).line()).isTrue();
    }

    @Test
    void theClusterIsThreeMastersAndThreeReplicasAgainAfterAFailover() {
        FailoverScenario.withoutWait().run(context(), LabPolicy.WAIT);
        assertThat(backend.localCluster().orElseThrow().nodes()).hasSize(6);
    }

    @Test
    void aStoreWithoutNodesToKillCannotStageIt() {
        ScenarioContext memory = new ScenarioContext(new MemoryBackend(), ScenarioSettings.defaults(),
                CoordinatorFactory.LIBRARY);
        assertThatThrownBy(() -> FailoverScenario.withoutWait().run(memory, LabPolicy.WAIT))
                .isInstanceOf(CannotStageException.class).hasMessageContaining("Redis Cluster");
    }

    @Test
    void aWaitShortfallFailsTheGateWhenTheUnmitigatedRunChargedOnce() {
        ScenarioRun run = FailoverScenario.withoutWait().run(context(), LabPolicy.WAIT);
        ScenarioRun once = new ScenarioRun(run.scenario(), run.policy(), run.label(), run.store(), run.settings(),
                run.callers().subList(0, 1), run.charges().subList(0, 1), 0, run.note(), run.timeline());
        assertThat(Expectations.check(once).passed()).isFalse();
        assertThat(Expectations.check(once).line()).contains("the loss was not reproduced");
    }
}
