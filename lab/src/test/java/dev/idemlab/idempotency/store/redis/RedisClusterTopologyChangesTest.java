package dev.idemlab.idempotency.store.redis;

import dev.idemlab.idempotency.Fingerprint;
import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.IdempotencyStoreException.Failure;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.spi.StoredResult;
import dev.idemlab.lab.infra.LocalRedisCluster;
import dev.idemlab.lab.infra.LocalRedisCluster.Node;
import dev.idemlab.lab.infra.Origin;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.RedisClusterBackend;
import dev.idemlab.lab.infra.SlotMigration;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.ChargeRequest;
import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.StaleFenceException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A Redis Cluster changing under the store, on the lab's own cluster: a namespace's slot moving to
 * another master while a holder runs and a retry arrives (resharding), and a master lost with what its
 * replica had not copied (failover). Redirects are not outages, and fences never repeat.
 */
class RedisClusterTopologyChangesTest {

    private static final String FP = "a".repeat(64);
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final ResultCodec<Charge> CHARGE = ResultCodec.json(Charge.class);
    /** More than a loopback socket pair buffers, so a frozen replica really lags (as FailoverScenario does). */
    private static final int BACKLOG_BYTES = 24 * 1024 * 1024;

    private static RedisClusterBackend backend;
    private static LocalRedisCluster cluster;
    private static RedisIdempotencyStore store;

    private final ExecutorService callers = Executors.newCachedThreadPool();

    @BeforeAll
    static void startCluster() {
        backend = RedisClusterBackend.open(new ProvisioningOptions(null, Origin.CLUSTER, null, null));
        try {
            cluster = backend.localCluster().orElseThrow();
            store = backend.openStore(b -> b);
        } catch (RuntimeException e) {
            backend.close();
            throw e;
        }
    }

    @AfterAll
    static void stopCluster() {
        try {
            if (store != null) {
                store.close();
            }
        } finally {
            backend.close();
        }
    }

    /**
     * A test before this one may have crashed a master and put a new node in its place: the shared store
     * finds out by its own topology reads, a moment later. Until then a command for that master's slots
     * goes to the dead node ("Unable to connect"), which is what that test is about, not this one.
     */
    @BeforeEach
    void storeReachesEveryMaster() {
        for (Node master : cluster.masters()) {
            awaitStoreFollows("payment.charge:" + keyOn(store, master, true));
        }
    }

    @AfterEach
    void stopCallers() {
        callers.shutdownNow();
    }

    private static IdempotentCall chargeCall(String key) {
        return IdempotentCall.of("payment.charge", key, Fingerprint.ofFields(Map.of("order_id", key, "amount", 10)));
    }

    private static long fence(Reservation reservation) {
        return ((Reservation.Acquired) reservation).fence();
    }

    /** A caller that reserves {@code key} and, once inside its action, charges only when {@code mayCharge} opens. */
    private CompletableFuture<IdempotentResult<Charge>> holdTheKey(IdempotencyCoordinator coordinator,
            FakePaymentProvider provider, String key, CountDownLatch mayCharge) throws InterruptedException {
        CountDownLatch inside = new CountDownLatch(1);
        CompletableFuture<IdempotentResult<Charge>> holder = CompletableFuture.supplyAsync(() ->
                coordinator.call(chargeCall(key), CHARGE, () -> {
                    inside.countDown();
                    awaitOpen(mayCharge);
                    return provider.charge(key, 10, key);
                }), callers);
        assertThat(inside.await(30, TimeUnit.SECONDS)).isTrue();
        return holder;
    }

    private static void awaitOpen(CountDownLatch latch) {
        try {
            assertThat(latch.await(60, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while held", e);
        }
    }

    /** Another master than {@code master}, to move a slot to. */
    private static Node anotherMasterThan(Node master) {
        return cluster.masters().stream().filter(n -> !n.id().equals(master.id())).findFirst().orElseThrow();
    }

    @Test
    void theRepliesOfASlotInMigrationAreBusyNotOutages() {
        assertThat(RedisScriptClient.classify(new RedisCommandExecutionException(
                "TRYAGAIN Multiple keys request during rehashing of slot"))).isEqualTo(Failure.BUSY);
        assertThat(RedisScriptClient.classify(new RedisCommandExecutionException("ASK 866 127.0.0.1:7001")))
                .isEqualTo(Failure.BUSY);
        assertThat(RedisScriptClient.classify(new RedisCommandExecutionException("CLUSTERDOWN The cluster is down")))
                .isEqualTo(Failure.BUSY);
        assertThat(RedisScriptClient.classify(new RedisCommandExecutionException("ERR unknown command")))
                .isEqualTo(Failure.OTHER);
    }

    /**
     * A namespace is one key, so a migration cannot split it between two masters: once the record has
     * moved, the retry's reserve and the holder's complete follow it to the new master (ASK) while the
     * slot is still migrating, and nothing of the namespace is left behind. (When the fence counter was
     * a key of its own, the two could be split, and both calls met TRYAGAIN until the migration ended;
     * before that was taken as busy, the retry failed open while the holder ran and charged again.)
     */
    @Test
    void aReserveAndACompleteDuringTheirSlotsMigrationFollowTheRecordAndTheLedgerHoldsOneCharge() throws Exception {
        String key = "split-" + UUID.randomUUID();
        String recordKey = store.keyOf("payment.charge:" + key);
        FakePaymentProvider provider = FakePaymentProvider.builder().latency(Duration.ZERO).build();
        WatchedStore watched = new WatchedStore(store);
        // The default patience (2 s) is more than the steps below take; a loaded two-core box is given more.
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(watched)
                .config(IdempotencyConfig.custom().lease(LEASE).storePatience(Duration.ofSeconds(20)).build()).build();
        CountDownLatch holderMayCharge = new CountDownLatch(1);
        CompletableFuture<IdempotentResult<Charge>> holder = holdTheKey(coordinator, provider, key, holderMayCharge);

        Node from = cluster.masterOf(recordKey);
        SlotMigration migration = cluster.beginMigration(SlotHash.getSlot(recordKey), from, anotherMasterThan(from));
        CompletableFuture<IdempotentResult<Charge>> retry;
        try {
            assertThat(migration.moveKey(recordKey)).isTrue(); // the namespace's one key
            retry = CompletableFuture.supplyAsync(() ->
                    coordinator.call(chargeCall(key), CHARGE, () -> provider.charge(key, 10, key)), callers);
            watched.awaitFound(); // the holder's reservation, on the new master
            holderMayCharge.countDown();
            assertThat(holder.get(30, TimeUnit.SECONDS).outcome()).isEqualTo(Outcome.EXECUTED);
            assertThat(migration.moveRemaining()).isZero();
        } finally {
            migration.finish();
        }

        IdempotentResult<Charge> retried = retry.get(30, TimeUnit.SECONDS);
        assertThat(retried.outcome()).isIn(Outcome.WAITED, Outcome.REPLAYED);
        assertThat(retried.value().id()).isEqualTo("ch_1");
        assertThat(provider.chargeIds()).containsExactly("ch_1");
        assertThat(coordinator.stats().totalStorageErrors()).isZero();
        assertThat(cluster.masterOf(recordKey).id()).isEqualTo(migration.to().id());
    }

    @Test
    void aNamespaceMovesWithItsSlotAndItsFencesKeepGrowing() {
        String ns = "payment.charge:moves-" + UUID.randomUUID();
        int slot = SlotHash.getSlot(store.keyOf(ns));
        long before = fence(store.reserve(ns, "t1", FP, LEASE)); // pending: its record keeps its fence

        Node from = cluster.masterOf(store.keyOf(ns));
        Node to = anotherMasterThan(from);
        cluster.migrateSlot(slot, from, to);

        assertThat(cluster.masterOf(store.keyOf(ns)).id()).isEqualTo(to.id());
        try (RawRedisCluster raw = new RawRedisCluster(cluster.seedUri())) {
            assertThat(raw.commands().get(store.keyOf(ns))).startsWith("3|p|").endsWith(before + "|t1");
        }
        assertThat(fence(store.reserve(ns, "t1", FP, LEASE))).isGreaterThan(before); // its retried reserve
        assertThat(store.release(ns, "t1")).isTrue();
        long after = fence(store.reserve(ns, "t2", FP, LEASE));
        assertThat(after).isGreaterThan(before);
        assertThat(store.complete(ns, "t2", FP, StoredResult.of("1"), LEASE.multipliedBy(10))).isTrue();
    }

    @Test
    void aPlannedFailoverKeepsTheReservationAndTheFencesGrowing() {
        String ns = "payment.charge:planned-" + UUID.randomUUID();
        long before = fence(store.reserve(ns, "t1", FP, LEASE));
        Node master = cluster.masterOf(store.keyOf(ns));
        Node replica = cluster.replicaOf(master);

        cluster.failOver(replica);

        assertThat(cluster.masterOf(store.keyOf(ns)).id()).isEqualTo(replica.id());
        assertThat(awaitStoreFollows(ns)).isPresent(); // nothing written is lost in a planned failover
        assertThat(store.release(ns, "t1")).isTrue();
        assertThat(fence(store.reserve(ns, "t2", FP, LEASE))).isGreaterThan(before);
    }

    /**
     * The namespace's replica is frozen behind a backlog, a holder reserves on the master (its fence
     * reaches no replica), the master dies and the replica takes over with the counter it had: the
     * next reservation's fence is still above the lost holder's, so a provider that checks fences
     * refuses the lost holder once the new one charged. Before, the promoted counter handed the lost
     * holder's fence out again and the provider admitted both.
     */
    @Test
    void afterFailoverToALaggingReplicaTheNextFenceExceedsEveryFenceTheOldMasterGave() {
        String ns = "payment.charge:failover-" + UUID.randomUUID();
        String recordKey = store.keyOf(ns);
        // The same keys as the store's (each store the backend opens has a key prefix of its own), with WAIT.
        try (RedisIdempotencyStore acknowledged = backend.openStore(b -> b.keyPrefix(store.config().keyPrefix())
                .waitForReplicas(1, Duration.ofMillis(500)))) {
            long replicated = fence(acknowledged.reserve(ns, "t0", FP, LEASE)); // the replica has this counter
            assertThat(acknowledged.release(ns, "t0")).isTrue();
            assertThat(replicated).isPositive();
        }
        Node master = cluster.masterOf(recordKey);
        Node replica = cluster.replicaOf(master);
        long lost;
        cluster.freeze(replica);
        try {
            cluster.lagReplicaOf(master, recordKey + ":backlog", BACKLOG_BYTES);
            lost = fence(store.reserve(ns, "stale", FP, LEASE)); // the holder that will be paused past all this
            cluster.crash(master);
        } finally {
            cluster.thaw(replica);
        }
        cluster.takeOver(replica);
        cluster.replace(master, replica);
        assertThat(awaitStoreFollows(ns)).isEmpty(); // the lost holder's reservation died with the master

        long next = fence(store.reserve(ns, "new", FP, LEASE));

        assertThat(next).isGreaterThan(lost);
        FakePaymentProvider provider = FakePaymentProvider.builder().latency(Duration.ZERO).checkFences(true).build();
        ChargeRequest charge = ChargeRequest.of("order-" + ns, 10, ns);
        assertThat(provider.charge(charge.withFence(next)).id()).isEqualTo("ch_1");
        assertThatThrownBy(() -> provider.charge(charge.withFence(lost))).isInstanceOf(StaleFenceException.class);
        assertThat(provider.chargeIds()).containsExactly("ch_1");
    }

    /**
     * The nemesis found it: one master's connection still reconnecting opened the one circuit of the
     * whole cluster, and every key, on every master, failed fast for seconds with no fault left. Each
     * master has a circuit of its own now: a master that is gone fails its own slots fast, and a key on
     * another master is reserved, run and completed as if nothing happened, charged once.
     */
    @Test
    void aMasterThatIsGoneOpensOnlyItsOwnCircuit() throws Exception {
        // A cool-down longer than the test: a circuit that opened stays open while the other key is called.
        try (RedisIdempotencyStore guarded = backend.openStore(b -> b.circuitCoolDown(Duration.ofMinutes(5)))) {
            // A master with a replica in sync (the earlier tests' failovers leave a new one still syncing at times).
            Node[] chosen = new Node[2];
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                for (Node master : cluster.masters()) {
                    try {
                        chosen[1] = cluster.replicaOf(master);
                        chosen[0] = master;
                        return true;
                    } catch (dev.idemlab.lab.infra.ProvisioningException noReplicaYet) {
                        // the next master
                    }
                }
                return false;
            });
            Node gone = chosen[0];
            Node replica = chosen[1];
            String goneKey = keyOn(guarded, gone, true);
            String liveKey = keyOn(guarded, gone, false);
            assertThat(guarded.lookup("payment.charge:" + goneKey)).isEmpty(); // a connection to each master
            assertThat(guarded.lookup("payment.charge:" + liveKey)).isEmpty();

            cluster.crash(gone);
            try {
                await().atMost(Duration.ofSeconds(30)).until(() -> failureOf(guarded, goneKey) == Failure.CIRCUIT_OPEN);
                FakePaymentProvider provider = FakePaymentProvider.builder().latency(Duration.ZERO).build();
                IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(guarded)
                        .config(IdempotencyConfig.custom().lease(LEASE)
                                .storeFailureMode(dev.idemlab.idempotency.StoreFailureMode.FAIL_CLOSED).build())
                        .build();
                String key = liveKey;
                IdempotentResult<Charge> first = coordinator.call(chargeCall(key), CHARGE,
                        () -> provider.charge(key, 10, key));
                IdempotentResult<Charge> retry = coordinator.call(chargeCall(key), CHARGE,
                        () -> provider.charge(key, 10, key));

                assertThat(first.outcome()).isEqualTo(Outcome.EXECUTED);
                assertThat(retry.outcome()).isEqualTo(Outcome.REPLAYED);
                assertThat(retry.value().id()).isEqualTo(first.value().id());
                assertThat(provider.chargeIds()).containsExactly("ch_1");
            } finally {
                // Within the node timeout its replica may have taken over by itself; else it takes over now.
                try {
                    cluster.takeOver(replica);
                } catch (RuntimeException alreadyMaster) {
                    // CLUSTER FAILOVER is refused on a master: the cluster failed over on its own.
                }
                cluster.replace(gone, replica);
            }
        }
    }

    /** A key whose record lives on {@code master} ({@code there}), or on another master. */
    private static String keyOn(RedisIdempotencyStore on, Node master, boolean there) {
        while (true) {
            String key = UUID.randomUUID().toString();
            if (cluster.masterOf(on.keyOf("payment.charge:" + key)).id().equals(master.id()) == there) {
                return key;
            }
        }
    }

    /** How a lookup of {@code key}'s record fails on {@code on}, or {@code null} when it answers. */
    private static Failure failureOf(RedisIdempotencyStore on, String key) {
        try {
            on.lookup("payment.charge:" + key);
            return null;
        } catch (IdempotencyStoreException e) {
            return e.failure();
        }
    }

    /** Waits until the store reaches the promoted master, and answers what it holds for {@code ns}. */
    private static Optional<?> awaitStoreFollows(String ns) {
        Optional<?>[] seen = new Optional<?>[1];
        await().atMost(Duration.ofSeconds(30)).ignoreException(IdempotencyStoreException.class).until(() -> {
            seen[0] = store.lookup(ns);
            return true;
        });
        return seen[0];
    }
}
