package dev.idemlab.idempotency.store.redis;

import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.spi.StoredResult;
import dev.idemlab.idempotency.testsupport.TestRedis;
import dev.idemlab.provider.ChargeRequest;
import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.StaleFenceException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Fences never repeat, also when the server lost what it knew: a fence is the server's clock in
 * microseconds, and a token that takes its own live reservation again gets more than the fence that
 * reservation keeps. On real servers with an RDB file in a directory of the test's, so that one can
 * come back from an older snapshot: private servers ({@link TestRedis#providePrivate}), never one given
 * by URL, which SAVE and a restart would touch.
 */
class RedisFencesTest {

    private static final String FP = "a".repeat(64);
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final long HOUR_US = Duration.ofHours(1).toNanos() / 1000;

    @TempDir
    static Path sharedDir;
    private static TestRedis server;
    private static RedisIdempotencyStore store;
    private static RawRedis raw;

    @BeforeAll
    static void startServer() {
        server = startWithDataIn(sharedDir);
        store = new RedisIdempotencyStore(RedisStoreConfig.of(server.uri()));
        raw = new RawRedis(server.uri());
        raw.firstRoundTrip(store);
    }

    @AfterAll
    static void stopServer() throws Exception {
        RawRedis.closeAll(raw, store, server);
    }

    /**
     * A server whose RDB snapshot is {@code dir}/dump.rdb: it loads the file when it starts, and writes
     * it on SAVE, never by itself (nor on shutdown), so the file holds exactly the last snapshot asked for.
     */
    private static TestRedis startWithDataIn(Path dir) {
        return TestRedis.providePrivate(List.of("--dir", dir.toAbsolutePath().toString(), "--dbfilename", "dump.rdb"));
    }

    private static String namespace() {
        return "payment.charge:" + UUID.randomUUID();
    }

    private static long fence(RedisIdempotencyStore on, String ns, String token) {
        return ((Reservation.Acquired) on.reserve(ns, token, FP, LEASE)).fence();
    }

    private static long serverMicros(RawRedis on) {
        List<String> time = on.commands().time();
        return Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
    }

    @Test
    void aFenceIsTheServersClockInMicroseconds() {
        long before = serverMicros(raw);
        long fence = fence(store, namespace(), "t1");
        assertThat(fence).isBetween(before, serverMicros(raw));
    }

    /**
     * As after the server's clock stepped back an hour while a reservation lasted: a retried reserve by
     * its own token gets more than the fence the reservation keeps, not the clock's earlier reading.
     */
    @Test
    void aRetriedReserveGetsMoreThanItsReservationsFenceWhenTheClockIsBehindIt() {
        String ns = namespace();
        long ahead = serverMicros(raw) + HOUR_US;
        byte[] reservation = concat("3|p|".getBytes(StandardCharsets.US_ASCII), HexFormat.of().parseHex(FP),
                (ahead + "|t1").getBytes(StandardCharsets.US_ASCII));
        raw.setBytes(store.keyOf(ns), reservation, LEASE);
        assertThat(fence(store, ns, "t1")).isEqualTo(ahead + 1);
        assertThat(fence(store, ns, "t1")).isEqualTo(ahead + 2);
    }

    /** A namespace is one key, whatever state it is in: nothing beside the record to outlive it. */
    @Test
    void aNamespaceIsItsRecordAlone() {
        String ns = namespace();
        String key = store.keyOf(ns);
        String pattern = "*" + ns.substring(ns.indexOf(':') + 1) + "*";
        fence(store, ns, "t1");
        assertThat(raw.commands().keys(pattern)).containsExactly(key);
        assertThat(store.complete(ns, "t1", FP, StoredResult.of("1"), Duration.ofMinutes(5))).isTrue();
        assertThat(raw.commands().keys(pattern)).containsExactly(key);
        String released = namespace();
        fence(store, released, "t1");
        assertThat(store.release(released, "t1")).isTrue();
        assertThat(raw.commands().keys("*" + released.substring(released.indexOf(':') + 1) + "*")).isEmpty();
    }

    @Test
    void theReservationAfterACompletedRecordGetsAGreaterFence() {
        String ns = namespace();
        long first = fence(store, ns, "t1");
        assertThat(store.complete(ns, "t1", FP, StoredResult.of("1"), Duration.ofMinutes(5))).isTrue();
        raw.expireNow(store.keyOf(ns));
        assertThat(fence(store, ns, "t2")).isGreaterThan(first);
    }

    @Test
    void theReservationAfterAReleasedOneGetsAGreaterFence() {
        String ns = namespace();
        long first = fence(store, ns, "t1");
        assertThat(store.release(ns, "t1")).isTrue();
        assertThat(raw.commands().exists(store.keyOf(ns))).isZero();
        assertThat(fence(store, ns, "t2")).isGreaterThan(first);
    }

    private static byte[] concat(byte[]... parts) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    /**
     * SAVE after the first reservation, two more, then the server comes back from that snapshot with
     * the first reservation and its fence. Before, INCR handed out the second fence again, and a provider
     * that checks fences let the holder that still had it charge beside the new one.
     */
    @Test
    void aServerRestartedFromAnOlderSnapshotHandsOutAFenceAboveEveryEarlierOne(@TempDir Path dir) throws Exception {
        String ns = namespace();
        long saved;
        long stale;
        String key;
        try (TestRedis first = startWithDataIn(dir);
             RedisIdempotencyStore before = new RedisIdempotencyStore(RedisStoreConfig.of(first.uri()));
             RawRedis rawBefore = new RawRedis(first.uri())) {
            key = before.keyOf(ns);
            saved = fence(before, ns, "t1");
            assertThat(rawBefore.commands().save()).isEqualTo("OK"); // t1's reservation and its fence
            assertThat(before.release(ns, "t1")).isTrue();
            long second = fence(before, ns, "t2");
            assertThat(before.release(ns, "t2")).isTrue();
            stale = fence(before, ns, "t3"); // this holder is paused past the restart
            assertThat(stale).isGreaterThan(second);
        }
        assertThat(Files.exists(dir.resolve("dump.rdb"))).isTrue();

        try (TestRedis restarted = startWithDataIn(dir);
             RedisIdempotencyStore after = new RedisIdempotencyStore(RedisStoreConfig.of(restarted.uri()));
             RawRedis rawAfter = new RawRedis(restarted.uri())) {
            assertThat(new String(rawAfter.bytes(key), StandardCharsets.ISO_8859_1)).as("the reservation of the snapshot")
                    .endsWith(saved + "|t1");
            rawAfter.expireNow(after.keyOf(ns)); // t1's reservation, back from the snapshot, runs out
            long next = fence(after, ns, "t4");

            assertThat(next).isGreaterThan(stale);
            FakePaymentProvider provider = FakePaymentProvider.builder().latency(Duration.ZERO).checkFences(true).build();
            ChargeRequest charge = ChargeRequest.of("order-" + ns, 10, ns);
            assertThat(provider.charge(charge.withFence(next)).id()).isEqualTo("ch_1");
            assertThatThrownBy(() -> provider.charge(charge.withFence(stale))).isInstanceOf(StaleFenceException.class);
            assertThat(provider.chargeIds()).containsExactly("ch_1");
        }
    }
}
