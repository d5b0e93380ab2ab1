package dev.idemlab.idempotency.store.redis;

import dev.idemlab.idempotency.IdempotencyRecordUnreadableException;
import dev.idemlab.idempotency.spi.CompletionNotifications;
import dev.idemlab.idempotency.spi.CompletionNotifications.Ending;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Completed;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Pending;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.tck.IdempotencyStoreContract;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.spi.StoredResult;
import dev.idemlab.idempotency.testsupport.TestRedis;
import io.lettuce.core.SetArgs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The store contract, and what only Redis can show, on the server {@link TestRedis#provide()} finds:
 * the one given by {@code IDEMLAB_REDIS_URL} (under a key prefix of the test's), else a private one.
 */
class RedisIdempotencyStoreTest extends IdempotencyStoreContract {

    private static TestRedis server;
    private static RedisIdempotencyStore store;
    private static RawRedis raw;

    @BeforeAll
    static void startServer() {
        server = TestRedis.provide();
        store = RawRedis.openStore(server);
        raw = new RawRedis(server.uri());
        raw.firstRoundTrip(store);
        System.out.println("store contract on " + server);
    }

    @AfterAll
    static void stopServer() throws Exception {
        RawRedis.closeAll(raw, store, server);
    }

    @Override
    protected IdempotencyStore store() {
        return store;
    }

    @Override
    protected void forceExpiry(String namespace) {
        raw.expireNow(store.keyOf(namespace));
    }

    @Test
    void aPendingReservationCarriesAtMostTheLeaseAsItsServerSideExpiry() {
        String ns = namespace();
        store.reserve(ns, "t1", FP, LEASE);
        assertThat(raw.commands().pttl(store.keyOf(ns))).isPositive().isLessThanOrEqualTo(LEASE.toMillis());
    }

    @Test
    void aCompletedRecordCarriesTheTtlAsItsServerSideExpiry() {
        String ns = namespace();
        store.reserve(ns, "t1", FP, LEASE);
        store.complete(ns, "t1", FP, StoredResult.of("\"ch_1\""), TTL);
        assertThat(raw.commands().pttl(store.keyOf(ns))).isGreaterThan(LEASE.toMillis())
                .isLessThanOrEqualTo(TTL.toMillis());
    }

    @Test
    void reserveTwiceWithTheSameTokenAcquiresBothTimesAsWhenTheFirstReplyWasLost() {
        String ns = namespace();
        assertThat(store.reserve(ns, "t1", FP, LEASE)).isInstanceOf(Reservation.Acquired.class);
        assertThat(store.reserve(ns, "t1", FP, LEASE)).isInstanceOf(Reservation.Acquired.class);
        assertThat(store.complete(ns, "t1", FP, StoredResult.of("1"), TTL)).isTrue();
    }

    @Test
    void theLuaScriptsRefuseAStaleHoldersCompleteAndReleaseAndLeaveTheNewOwnersRecordUntouched() {
        String ns = namespace();
        String key = store.keyOf(ns);
        store.reserve(ns, "stale", FP, LEASE);
        raw.expireNow(key);
        store.reserve(ns, "owner", FP, LEASE);
        String ownersRecord = raw.commands().get(key);

        assertThat(store.complete(ns, "stale", FP, StoredResult.of("\"stale\""), TTL)).isFalse();
        assertThat(store.release(ns, "stale")).isFalse();

        assertThat(raw.commands().get(key)).isEqualTo(ownersRecord);
        assertThat(raw.commands().pttl(key)).isPositive().isLessThanOrEqualTo(LEASE.toMillis());
        assertThat(((Pending) store.lookup(ns).orElseThrow()).token()).isEqualTo("owner");
    }

    /** SCRIPT FLUSH empties the whole server's script cache: on a private server, never on one given by URL. */
    @Test
    void aServerThatLostItsScriptsGetsThemAgainAndTheCallSucceeds() throws Exception {
        try (TestRedis own = TestRedis.providePrivate(List.of());
             RedisIdempotencyStore onOwn = RawRedis.openStore(own);
             RawRedis rawOwn = new RawRedis(own.uri())) {
            rawOwn.firstRoundTrip(onOwn);
            onOwn.reserve(namespace(), "t0", FP, LEASE); // the scripts are loaded
            rawOwn.commands().scriptFlush();
            String ns = namespace();
            assertThat(onOwn.reserve(ns, "t1", FP, LEASE)).isInstanceOf(Reservation.Acquired.class);
            assertThat(onOwn.lookup(ns)).containsInstanceOf(Pending.class);
        }
    }

    @Test
    void aRecordThatIsNotOursIsRefusedAsUnreadableNeitherAnAnswerNorAStorageError() {
        String ns = namespace();
        raw.commands().set(store.keyOf(ns), "not json");
        assertThatThrownBy(() -> store.lookup(ns)).isInstanceOf(IdempotencyRecordUnreadableException.class)
                .hasMessageContaining("not a record of schema version 3 or 2");
        assertThatThrownBy(() -> store.reserve(ns, "t1", FP, LEASE))
                .isInstanceOf(IdempotencyRecordUnreadableException.class);
        assertThatThrownBy(() -> store.complete(ns, "t1", FP, StoredResult.of("1"), TTL))
                .isInstanceOf(IdempotencyRecordUnreadableException.class);
        assertThat(raw.commands().get(store.keyOf(ns))).isEqualTo("not json");
    }

    @Test
    void theRecordIsOneStringWithAFixedHeaderTheFingerprintsBytesAndTheResult() {
        String ns = namespace();
        byte[] fingerprint = HexFormat.of().parseHex(FP);
        long fence = ((Reservation.Acquired) store.reserve(ns, "t|1", FP, LEASE)).fence();
        assertThat(raw.bytes(store.keyOf(ns))).isEqualTo(concat(utf8("3|p|"), fingerprint, utf8(fence + "|t|1")));
        store.complete(ns, "t|1", FP, StoredResult.of("{\"id\":\"ch|1\"}"), TTL);
        assertThat(raw.commands().type(store.keyOf(ns))).isEqualTo("string");
        assertThat(raw.bytes(store.keyOf(ns))).isEqualTo(concat(utf8("3|c|"), fingerprint, utf8("{\"id\":\"ch|1\"}")));
        Completed completed = (Completed) store.lookup(ns).orElseThrow();
        assertThat(completed.fingerprint()).isEqualTo(FP);
        assertThat(completed.result().json()).isEqualTo("{\"id\":\"ch|1\"}");
    }

    /**
     * The client builds the completed record with the fingerprint it is given; a live reservation keeps
     * its own (the SPI's rule), so complete.lua puts that one in when they differ.
     */
    @Test
    void aCompletionKeepsTheReservationsFingerprintWhenGivenAnother() {
        String ns = namespace();
        store.reserve(ns, "t1", FP, LEASE);
        assertThat(store.complete(ns, "t1", "b".repeat(64), StoredResult.of("{\"id\":\"ch_1\"}"), TTL)).isTrue();
        assertThat(raw.bytes(store.keyOf(ns)))
                .isEqualTo(concat(utf8("3|c|"), HexFormat.of().parseHex(FP), utf8("{\"id\":\"ch_1\"}")));
        String late = namespace();
        assertThat(store.complete(late, "t1", "b".repeat(64), StoredResult.notStored("too large"), TTL)).isTrue();
        assertThat(store.lookup(late)).contains(new Completed("b".repeat(64), StoredResult.notStored("too large")));
    }

    /**
     * reserve.lua writes a fence's digits from TIME's two parts, the microseconds padded to six: reserves
     * until one falls in the first tenth of a second (a few thousand calls at most, whatever their speed),
     * each record checked against the fence's decimal form.
     */
    @Test
    void aReservationKeepsItsFenceInDecimalWhateverTheMicroseconds() {
        boolean padded = false;
        for (int i = 0; i < 1_000_000 && !padded; i++) {
            String ns = namespace();
            long fence = ((Reservation.Acquired) store.reserve(ns, "t1", FP, LEASE)).fence();
            assertThat(raw.bytes(store.keyOf(ns)))
                    .isEqualTo(concat(utf8("3|p|"), HexFormat.of().parseHex(FP), utf8(fence + "|t1")));
            padded = fence % 1_000_000 < 100_000;
            raw.commands().del(store.keyOf(ns));
        }
        assertThat(padded).as("a fence on the first 100,000 microseconds of a second").isTrue();
    }

    /** Every byte value, the bar and bytes that are not UTF-8 on their own included, comes back as it went. */
    @Test
    void aFingerprintOfAnyBytesIsKeptWhole() {
        String ns = namespace();
        String any = "7c" + "00ff80c3".repeat(7) + "e2827c";
        store.reserve(ns, "t1", any, LEASE);
        assertThat(store.lookup(ns).orElseThrow().fingerprint()).isEqualTo(any);
        assertThat(((Reservation.Found) store.reserve(ns, "t2", any, LEASE)).record())
                .isInstanceOfSatisfying(Pending.class, p -> assertThat(p.token()).isEqualTo("t1"))
                .extracting(r -> r.fingerprint()).isEqualTo(any);
        assertThat(store.complete(ns, "t1", any, StoredResult.of("1"), TTL)).isTrue();
        assertThat(store.lookup(ns)).contains(new Completed(any, StoredResult.of("1")));
        assertThat(store.reserve(ns, "t3", FP, LEASE)).isEqualTo(Reservation.found(new Completed(any, StoredResult.of("1"))));
    }

    /** Records written by the earlier release (schema version 2, the fingerprint in hex) are read as they are. */
    @Test
    void aRecordOfSchemaVersion2IsStillReadAndNeverTakenOver() {
        String completed = namespace();
        raw.commands().set(store.keyOf(completed), "2|c|" + FP + "|{\"id\":\"ch|1\"}", SetArgs.Builder.px(TTL.toMillis()));
        Completed expected = new Completed(FP, StoredResult.of("{\"id\":\"ch|1\"}"));
        assertThat(store.reserve(completed, "t1", FP, LEASE)).isEqualTo(Reservation.found(expected));
        assertThat(store.lookup(completed)).contains(expected);
        assertThat(store.complete(completed, "t1", FP, StoredResult.of("2"), TTL)).isFalse();
        assertThat(store.release(completed, "t1")).isFalse();

        String notStored = namespace();
        raw.commands().set(store.keyOf(notStored), "2|n|" + OTHER_FP + "|too large", SetArgs.Builder.px(TTL.toMillis()));
        assertThat(store.lookup(notStored)).contains(new Completed(OTHER_FP, StoredResult.notStored("too large")));

        String pending = namespace();
        raw.commands().set(store.keyOf(pending), "2|p|" + FP + "|t|old", SetArgs.Builder.px(LEASE.toMillis()));
        Reservation found = store.reserve(pending, "t|old", FP, LEASE);
        assertThat(found).isInstanceOfSatisfying(Reservation.Found.class, f -> assertThat(f.record())
                .isInstanceOfSatisfying(Pending.class, p -> {
                    assertThat(p.token()).isEqualTo("t|old");
                    assertThat(p.fingerprint()).isEqualTo(FP);
                }));
        assertThat(store.renew(pending, "t|old", LEASE)).isFalse();
        assertThat(store.complete(pending, "t|old", FP, StoredResult.of("1"), TTL)).isFalse();
        assertThat(store.release(pending, "t|old")).isFalse();
        assertThat(raw.commands().get(store.keyOf(pending))).isEqualTo("2|p|" + FP + "|t|old");
    }

    @Test
    void aRecordOfALaterSchemaVersionIsRefusedNamingItsVersion() {
        String ns = namespace();
        raw.commands().set(store.keyOf(ns), "4|c|" + FP + "|1");
        assertThatThrownBy(() -> store.reserve(ns, "t1", FP, LEASE))
                .isInstanceOf(IdempotencyRecordUnreadableException.class).hasMessageContaining("schema version 4");
        assertThatThrownBy(() -> store.lookup(ns)).isInstanceOf(IdempotencyRecordUnreadableException.class)
                .hasMessageContaining("schema version 4");
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    @Test
    void aRecordOfTheJsonEncodingIsRefusedAsUnreadableNamingItsSchemaVersionNeverAsAbsent() {
        String ns = namespace();
        String old = "{\"v\":1,\"state\":\"completed\",\"fingerprint\":\"" + FP + "\",\"result\":\"1\"}";
        raw.commands().set(store.keyOf(ns), old);
        assertThatThrownBy(() -> store.reserve(ns, "t1", FP, LEASE))
                .isInstanceOf(IdempotencyRecordUnreadableException.class)
                .hasMessageContaining("schema version 1").hasMessageContaining("reads schema versions 3 and 2");
        assertThatThrownBy(() -> store.lookup(ns)).isInstanceOf(IdempotencyRecordUnreadableException.class)
                .hasMessageContaining("schema version 1");
        assertThat(raw.commands().get(store.keyOf(ns))).isEqualTo(old);
    }

    @Test
    void aFingerprintThatIsNotASha256InHexIsRefusedBeforeAnythingIsWritten() {
        String ns = namespace();
        for (String fingerprint : new String[] {"a|b", "fp", FP.toUpperCase(), FP + "a", "g" + FP.substring(1)}) {
            assertThatThrownBy(() -> store.reserve(ns, "t1", fingerprint, LEASE))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("64 lower-case hex");
            assertThatThrownBy(() -> store.complete(ns, "t1", fingerprint, StoredResult.of("1"), TTL))
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(raw.commands().exists(store.keyOf(ns))).isZero();
    }

    @Test
    void theScriptsTellWaitersTheCompletedRecordAndTheReleasedTokenSoTheyNeedNotReadTheStore() throws Exception {
        String completed = namespace();
        String released = namespace();
        store.reserve(completed, "t\u00e9|1", FP, LEASE);
        store.reserve(released, "t2", FP, LEASE);
        BlockingQueue<Ending> told = new LinkedBlockingQueue<>();
        try (CompletionNotifications.Subscription a = store.subscribe(completed, told::add);
             CompletionNotifications.Subscription b = store.subscribe(released, told::add)) {
            store.complete(completed, "t\u00e9|1", FP, StoredResult.notStored("too large"), TTL);
            assertThat(told.poll(10, TimeUnit.SECONDS)).isEqualTo(new Ending.Completed("t\u00e9|1",
                    new Completed(FP, StoredResult.notStored("too large"))));
            store.release(released, "t2");
            assertThat(told.poll(10, TimeUnit.SECONDS)).isEqualTo(new Ending.Released("t2"));
        }
    }

    @Test
    void aCompletionTooLargeToCarryIsAnnouncedWithoutItsRecordAndWaitersReadIt() throws Exception {
        String ns = namespace();
        String large = "\"" + "x".repeat(70_000) + "\"";
        store.reserve(ns, "t1", FP, LEASE);
        BlockingQueue<Ending> told = new LinkedBlockingQueue<>();
        try (CompletionNotifications.Subscription s = store.subscribe(ns, told::add)) {
            store.complete(ns, "t1", FP, StoredResult.of(large), TTL);
            assertThat(told.poll(10, TimeUnit.SECONDS)).isEqualTo(Ending.UNKNOWN);
        }
        assertThat(((Completed) store.lookup(ns).orElseThrow()).result().json()).isEqualTo(large);
    }

    @Test
    void describesItselfWithTheServersVersionAndAddress() {
        assertThat(store.describe().name()).isEqualTo("redis");
        assertThat(store.describe().serverVersion()).matches("\\d+\\.\\d+.*").isEqualTo(server.version());
        assertThat(store.describe().address()).isEqualTo(server.address());
    }
}
