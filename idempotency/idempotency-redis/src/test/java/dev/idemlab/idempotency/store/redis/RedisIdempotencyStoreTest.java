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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

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
                .hasMessageContaining("not a record of schema version 2");
        assertThatThrownBy(() -> store.reserve(ns, "t1", FP, LEASE))
                .isInstanceOf(IdempotencyRecordUnreadableException.class);
        assertThatThrownBy(() -> store.complete(ns, "t1", FP, StoredResult.of("1"), TTL))
                .isInstanceOf(IdempotencyRecordUnreadableException.class);
        assertThat(raw.commands().get(store.keyOf(ns))).isEqualTo("not json");
    }

    @Test
    void theRecordIsOneStringWithAFixedHeaderItsFingerprintAndResult() {
        String ns = namespace();
        store.reserve(ns, "t|1", FP, LEASE);
        assertThat(raw.commands().get(store.keyOf(ns))).isEqualTo("2|p|" + FP + "|t|1");
        store.complete(ns, "t|1", FP, StoredResult.of("{\"id\":\"ch|1\"}"), TTL);
        assertThat(raw.commands().type(store.keyOf(ns))).isEqualTo("string");
        assertThat(raw.commands().get(store.keyOf(ns))).isEqualTo("2|c|" + FP + "|{\"id\":\"ch|1\"}");
        assertThat(((Completed) store.lookup(ns).orElseThrow()).result().json()).isEqualTo("{\"id\":\"ch|1\"}");
    }

    @Test
    void aRecordOfTheJsonEncodingIsRefusedAsUnreadableNamingItsSchemaVersionNeverAsAbsent() {
        String ns = namespace();
        String old = "{\"v\":1,\"state\":\"completed\",\"fingerprint\":\"" + FP + "\",\"result\":\"1\"}";
        raw.commands().set(store.keyOf(ns), old);
        assertThatThrownBy(() -> store.reserve(ns, "t1", FP, LEASE))
                .isInstanceOf(IdempotencyRecordUnreadableException.class)
                .hasMessageContaining("schema version 1").hasMessageContaining("reads schema version 2");
        assertThatThrownBy(() -> store.lookup(ns)).isInstanceOf(IdempotencyRecordUnreadableException.class)
                .hasMessageContaining("schema version 1");
        assertThat(raw.commands().get(store.keyOf(ns))).isEqualTo(old);
    }

    @Test
    void aFingerprintThatWouldBreakTheRecordsHeaderIsRefusedBeforeAnythingIsWritten() {
        String ns = namespace();
        assertThatThrownBy(() -> store.reserve(ns, "t1", "a|b", LEASE)).isInstanceOf(IllegalArgumentException.class);
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
