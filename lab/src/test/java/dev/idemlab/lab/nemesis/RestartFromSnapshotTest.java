package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.spi.StoredResult;
import dev.idemlab.lab.faults.FaultKind;
import dev.idemlab.lab.infra.Origin;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.RedisBackend;
import dev.idemlab.lab.infra.ServerInfo;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code restart-from-snapshot} on a real private Redis: SAVE, writes go on, then the server dies and
 * a new one comes back from that snapshot. What was written after the SAVE is gone, what was written
 * before is there, the store answers again through the same proxy, and a fence handed out after the
 * restart is above the one handed out before it, although the counter came back older.
 */
class RestartFromSnapshotTest {

    /**
     * How long writes go on after the SAVE before the server dies: long enough for this test, on a loaded
     * machine, to see the save and write after it (300 ms was missed under a load average of 20).
     */
    private static final Duration HOLD = Duration.ofSeconds(2);
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofMinutes(5);
    private static final String FP = "f".repeat(64);

    @Test
    void writesSinceTheSnapshotAreLostAndTheStoreAnswersTheServerThatCameBack() throws Exception {
        try (RedisBackend backend = RedisBackend.open(new ProvisioningOptions(null, Origin.BUNDLED, null, null));
             RedisTarget target = new RedisTarget(backend)) {
            assertThat(target.kinds()).contains(FaultKind.RESTART_FROM_SNAPSHOT);
            IdempotencyStore store = target.store();
            ServerInfo before = target.server();
            complete(store, "saved");
            long fenceInSnapshot = fence(store, "fenced", "t1");
            assertThat(store.release("fenced", "t1")).isTrue();

            RedisClient direct = RedisClient.create("redis://" + before.address());
            CompletableFuture<Void> restart;
            try (StatefulRedisConnection<String, String> connection = direct.connect()) {
                restart = CompletableFuture.runAsync(() -> inject(target));
                awaitSave(connection);
            } finally {
                direct.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
            complete(store, "lost");
            long fenceAfterSave = fence(store, "fenced", "t2");
            assertThat(restart).as("the writes after the SAVE landed before the server died, within "
                    + HOLD.toMillis() + " ms").isNotDone();
            restart.get(30, TimeUnit.SECONDS);

            await().atMost(Duration.ofSeconds(10)).ignoreExceptions().untilAsserted(() ->
                    assertThat(store.lookup("saved")).get().isInstanceOf(IdempotencyRecord.Completed.class));
            assertThat(store.lookup("lost")).as("completed after the SAVE").isEmpty();
            assertThat(fenceAfterSave).isGreaterThan(fenceInSnapshot);
            assertThat(fence(store, "fenced", "t3")).as("the reservation t2 was lost; the next fence is above its")
                    .isGreaterThan(fenceAfterSave);
            assertThat(target.server().address()).as("the history names the server that came back")
                    .isNotEqualTo(before.address());
        }
    }

    private static void inject(RedisTarget target) {
        try {
            target.inject(FaultKind.RESTART_FROM_SNAPSHOT, HOLD);
        } catch (Exception e) {
            throw new CompletionException(e);
        }
    }

    /**
     * Until the server, asked directly on {@code connection} (opened before the fault, so that no connect
     * eats into the hold), counts no change since its last save: the SAVE has run.
     */
    private static void awaitSave(StatefulRedisConnection<String, String> connection) {
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(5))
                .until(() -> connection.sync().info("persistence").contains("rdb_changes_since_last_save:0\r\n"));
    }

    private static void complete(IdempotencyStore store, String namespace) {
        fence(store, namespace, "owner");
        assertThat(store.complete(namespace, "owner", FP, StoredResult.of("{\"id\":\"ch_1\"}"), TTL)).isTrue();
    }

    private static long fence(IdempotencyStore store, String namespace, String token) {
        Reservation reservation = store.reserve(namespace, token, FP, LEASE);
        assertThat(reservation).isInstanceOf(Reservation.Acquired.class);
        return ((Reservation.Acquired) reservation).fence();
    }
}
