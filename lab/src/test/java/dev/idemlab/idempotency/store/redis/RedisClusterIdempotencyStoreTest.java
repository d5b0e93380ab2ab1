package dev.idemlab.idempotency.store.redis;

import dev.idemlab.idempotency.spi.IdempotencyRecord.Pending;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.spi.StoredResult;
import dev.idemlab.idempotency.tck.IdempotencyStoreContract;
import dev.idemlab.lab.infra.Origin;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.RedisClusterBackend;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The store contract on a real Redis Cluster (three masters, three replicas, formed by the lab from the
 * bundled binary), and what only a cluster can show: one slot per namespace, scripts on every master,
 * the fence counter's retention, and WAIT.
 */
class RedisClusterIdempotencyStoreTest extends IdempotencyStoreContract {

    private static RedisClusterBackend backend;
    private static RedisIdempotencyStore store;
    private static RawRedisCluster raw;

    @BeforeAll
    static void startCluster() {
        backend = RedisClusterBackend.open(new ProvisioningOptions(null, Origin.CLUSTER, null, null));
        try {
            store = (RedisIdempotencyStore) backend.openStore();
            raw = new RawRedisCluster(backend.localCluster().orElseThrow().seedUri());
        } catch (RuntimeException e) {
            backend.close();
            throw e;
        }
        System.out.println("store contract on " + backend.server().describe());
    }

    @AfterAll
    static void stopCluster() {
        try {
            if (raw != null) {
                raw.close();
            }
            if (store != null) {
                store.close();
            }
        } finally {
            backend.close();
        }
    }

    @Override
    protected IdempotencyStore store() {
        return store;
    }

    @Override
    protected void forceExpiry(String namespace) {
        raw.expireNow(store.keyOf(namespace));
    }

    /** A namespace is one key: its record, which keeps its reservation's fence. */
    @Test
    void aNamespaceIsOneKeyOnItsSlotsMaster() {
        String ns = namespace();
        assertThat(store.reserve(ns, "t1", FP, LEASE)).isInstanceOf(Reservation.Acquired.class);
        assertThat(raw.commands().exists(store.keyOf(ns))).isEqualTo(1);
        assertThat(raw.commands().keys("*" + ns.substring(ns.indexOf(':') + 1) + "*")).containsExactly(store.keyOf(ns));
    }

    @Test
    void namespacesOnEveryMasterReserveAndComplete() {
        // Enough namespaces that every master's slots are hit: each master runs the scripts by EVALSHA
        // after a first EVAL of its own.
        java.util.Set<Integer> thirds = new java.util.HashSet<>();
        for (int i = 0; thirds.size() < 3 && i < 1000; i++) {
            String ns = namespace();
            thirds.add(SlotHash.getSlot(store.keyOf(ns)) * 3 / 16384);
            assertThat(store.reserve(ns, "t", FP, LEASE)).isInstanceOf(Reservation.Acquired.class);
            assertThat(store.complete(ns, "t", FP, StoredResult.of("1"), TTL)).isTrue();
        }
        assertThat(thirds).hasSize(3);
    }

    @Test
    void fencesGrowAfterAReleaseAndAfterARetriedReserve() {
        String ns = namespace();
        long first = ((Reservation.Acquired) store.reserve(ns, "t1", FP, LEASE)).fence();
        long again = ((Reservation.Acquired) store.reserve(ns, "t1", FP, LEASE)).fence();
        assertThat(again).isGreaterThan(first);
        store.release(ns, "t1");
        assertThat(raw.commands().exists(store.keyOf(ns))).isZero();
        long second = ((Reservation.Acquired) store.reserve(ns, "t2", FP, LEASE)).fence();
        assertThat(second).isGreaterThan(again);
    }

    @Test
    void aScriptFlushOnEveryMasterIsRecoveredNodeByNode() {
        raw.commands().upstream().commands().scriptFlush();
        String ns = namespace();
        assertThat(store.reserve(ns, "t1", FP, LEASE)).isInstanceOf(Reservation.Acquired.class);
        assertThat(store.lookup(ns)).containsInstanceOf(Pending.class);
    }

    @Test
    void waitForOneReplicaAcknowledgesAReservationOnAHealthyCluster() {
        try (RedisIdempotencyStore waiting = backend.openStore(b -> b.waitForReplicas(1, Duration.ofMillis(500)))) {
            String ns = namespace();
            assertThat(waiting.reserve(ns, "t1", FP, LEASE)).isInstanceOf(Reservation.Acquired.class);
            assertThat(waiting.complete(ns, "t1", FP, StoredResult.of("1"), TTL)).isTrue();
        }
    }

    @Test
    void waitForMoreReplicasThanThereAreIsAStorageErrorAndTheMarkerStaysOnTheMaster() {
        try (RedisIdempotencyStore waiting = backend.openStore(b -> b.waitForReplicas(2, Duration.ofMillis(100)))) {
            String ns = namespace();
            assertThatThrownBy(() -> waiting.reserve(ns, "t1", FP, LEASE))
                    .isInstanceOf(IdempotencyStoreException.class)
                    .hasMessageContaining("acknowledged by 1 of the 2 replica(s)");
            assertThat(waiting.lookup(ns)).containsInstanceOf(Pending.class);
        }
    }

    @Test
    void describesItselfAsRedisWithTheSeedsAddresses() {
        assertThat(store.describe().serverVersion()).matches("\\d+\\.\\d+.*");
        assertThat(store.config().cluster()).isTrue();
    }
}
