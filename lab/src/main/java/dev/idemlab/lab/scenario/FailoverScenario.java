package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.StoreFailureMode;
import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.store.redis.RedisIdempotencyStore;
import dev.idemlab.lab.infra.LocalRedisCluster;
import dev.idemlab.lab.infra.LocalRedisCluster.Node;
import dev.idemlab.lab.infra.RedisClusterBackend;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.provider.FakePaymentProvider;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;
import java.util.function.UnaryOperator;

/**
 * Asynchronous replication loses a reservation (fault catalogue case 22), on the lab's own Redis
 * Cluster. The namespace's replica is frozen (SIGSTOP) behind a replication backlog larger than the
 * sockets between the two hold, so nothing written next can reach it; caller A reserves and charges on
 * the master; the master is killed (SIGKILL); the replica is thawed and promoted (CLUSTER FAILOVER
 * TAKEOVER) with what it has; a fresh node takes the crashed one's place; caller B, the client's
 * retry, arrives. Without WAIT the promoted replica never saw A's marker and B charges again. With
 * {@code WAIT 1} after the reservation, A's marker that no replica acknowledged is a storage error and
 * the coordinator fails closed: A is refused before charging, and B's retry charges once.
 */
public final class FailoverScenario implements Scenario {

    /** The scenario's name on the command line. */
    public static final String NAME = "failover";
    /** The row without the mitigation: the lost reservation must show as a second charge. */
    public static final String WITHOUT_WAIT = "without WAIT";
    /** The row with it. */
    public static final String WITH_WAIT = "WAIT 1 replica, fail closed";
    /** How long WAIT may block for the replica's acknowledgement. */
    public static final Duration WAIT_TIMEOUT = Duration.ofMillis(200);

    /** More than a loopback socket pair buffers (a few MiB each way), so the replica's lag is real. */
    private static final int BACKLOG_BYTES = 24 * 1024 * 1024;
    private static final Duration FOLLOW_PATIENCE = Duration.ofSeconds(30);

    private final boolean waitForReplica;

    private FailoverScenario(boolean waitForReplica) {
        this.waitForReplica = waitForReplica;
    }

    /** The unmitigated run. */
    public static FailoverScenario withoutWait() {
        return new FailoverScenario(false);
    }

    /** The mitigated run: WAIT for one replica, fail closed. */
    public static FailoverScenario withWait() {
        return new FailoverScenario(true);
    }

    /** Both, unmitigated first: what {@code lab check} runs on the local cluster. */
    public static List<Scenario> both() {
        return List.of(withoutWait(), withWait());
    }

    /** Whether this is the mitigated run. */
    public boolean waitsForReplica() {
        return waitForReplica;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String summary() {
        return "a master dies before its replica copied the reservation; the promoted replica lets the retry charge "
                + (waitForReplica ? "(WAIT 1, fail closed)" : "(no WAIT)");
    }

    @Override
    public ScenarioRun run(ScenarioContext context, LabPolicy policy) {
        if (!(context.backend() instanceof RedisClusterBackend backend) || backend.localCluster().isEmpty()) {
            throw new CannotStageException("failover kills and promotes nodes, so it runs only on the lab's own "
                    + "Redis Cluster (--store redis-cluster, or --redis-from cluster)");
        }
        LocalRedisCluster cluster = backend.localCluster().get();
        ScenarioSettings settings = context.settings();
        StoreFailureMode mode = waitForReplica ? StoreFailureMode.FAIL_CLOSED : settings.storeFailureMode();
        UnaryOperator<dev.idemlab.idempotency.store.redis.RedisStoreConfig.Builder> tuning = waitForReplica
                ? b -> b.waitForReplicas(1, WAIT_TIMEOUT) : UnaryOperator.identity();
        try (RedisIdempotencyStore store = backend.openStore(tuning)) {
            ChargeClient.warmUp(context, store, policy);
            Timeline timeline = new Timeline();
            FakePaymentProvider provider = context.provider(timeline);
            IdempotencyCoordinator coordinator = context.coordinators().create(store, policy,
                    IdempotencyConfig.custom().lease(settings.lease()).storeFailureMode(mode).build());
            ChargeClient client = new ChargeClient(coordinator, provider, timeline);
            String recordKey = store.keyOf(ChargeClient.OPERATION + ":" + settings.key());
            Node master = cluster.masterOf(recordKey);
            Node replica = cluster.replicaOf(master);

            cluster.freeze(replica);
            CallerResult a;
            try {
                cluster.lagReplicaOf(master, recordKey + ":backlog", BACKLOG_BYTES);
                timeline.record("Lab", "Cluster", "SIGSTOP replica " + replica.address() + ", backlog "
                        + BACKLOG_BYTES / (1024 * 1024) + " MiB", false);
                a = client.charge("A", settings.key(), ScenarioSettings.AMOUNT);
                cluster.crash(master);
                timeline.record("Lab", "Cluster", "SIGKILL master " + master.address(), false);
            } finally {
                cluster.thaw(replica);
            }
            cluster.takeOver(replica);
            Node fresh = cluster.replace(master, replica);
            timeline.record("Lab", "Cluster", "SIGCONT and CLUSTER FAILOVER TAKEOVER on " + replica.address()
                    + "; new replica " + fresh.address(), false);
            Optional<IdempotencyRecord> survived = awaitStoreFollows(store, settings.key());
            CallerResult b = client.charge("B", settings.key(), ScenarioSettings.AMOUNT);

            Map<String, Object> reported = context.reportedSettings();
            reported.put("onStoreFailure", mode.name());
            reported.put("waitReplicas", waitForReplica ? 1 : 0);
            reported.put("waitTimeoutMs", waitForReplica ? WAIT_TIMEOUT.toMillis() : 0);
            reported.put("recordAfterFailover", survived.map(r -> r.getClass().getSimpleName().toLowerCase(
                    java.util.Locale.ROOT)).orElse("absent"));
            String note = "master " + master.address() + " killed after A, replica " + replica.address()
                    + " promoted; A's record on the new master: " + reported.get("recordAfterFailover");
            return new ScenarioRun(NAME, StagedScenario.policyName(policy), waitForReplica ? WITH_WAIT : WITHOUT_WAIT,
                    backend.server(), reported, List.of(a, b), provider.chargeIds(),
                    coordinator.stats().totalStorageErrors(), note, timeline.events());
        }
    }

    /**
     * Waits until the store reaches the promoted master (its cluster client re-reads the topology
     * once it finds the old master gone), and answers what the new master holds for the key.
     */
    private static Optional<IdempotencyRecord> awaitStoreFollows(RedisIdempotencyStore store, String key) {
        long deadline = System.nanoTime() + FOLLOW_PATIENCE.toNanos();
        while (true) {
            try {
                return store.lookup(ChargeClient.OPERATION + ":" + key);
            } catch (IdempotencyStoreException notYet) {
                if (System.nanoTime() - deadline >= 0) {
                    throw notYet;
                }
                LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
            }
        }
    }
}
