package dev.idemlab.idempotency.store.redis;

import dev.idemlab.idempotency.IdempotencyRecordUnreadableException;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Completed;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Pending;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.tck.IdempotencyStoreContract;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.spi.StoredResult;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.RedisBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The store contract, and what only Redis can show, on a real server the lab provisions. */
class RedisIdempotencyStoreTest extends IdempotencyStoreContract {

    private static RedisBackend backend;
    private static RedisIdempotencyStore store;
    private static RawRedis raw;

    @BeforeAll
    static void startServer() {
        backend = RedisBackend.open(ProvisioningOptions.defaults());
        store = (RedisIdempotencyStore) backend.openStore();
        raw = new RawRedis(backend.uri());
        System.out.println("store contract on " + backend.server().describe());
    }

    @AfterAll
    static void stopServer() {
        raw.close();
        store.close();
        backend.close();
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

    @Test
    void aServerThatLostItsScriptsGetsThemAgainAndTheCallSucceeds() {
        raw.commands().scriptFlush();
        String ns = namespace();
        assertThat(store.reserve(ns, "t1", FP, LEASE)).isInstanceOf(Reservation.Acquired.class);
        assertThat(store.lookup(ns)).containsInstanceOf(Pending.class);
    }

    @Test
    void aRecordThatIsNotOursIsRefusedAsUnreadableNeitherAnAnswerNorAStorageError() {
        String ns = namespace();
        raw.commands().set(store.keyOf(ns), "not json");
        assertThatThrownBy(() -> store.lookup(ns)).isInstanceOf(IdempotencyRecordUnreadableException.class)
                .hasMessageContaining("not JSON");
        assertThatThrownBy(() -> store.reserve(ns, "t1", FP, LEASE))
                .isInstanceOf(IdempotencyRecordUnreadableException.class);
        assertThatThrownBy(() -> store.complete(ns, "t1", FP, StoredResult.of("1"), TTL))
                .isInstanceOf(IdempotencyRecordUnreadableException.class);
        assertThat(raw.commands().get(store.keyOf(ns))).isEqualTo("not json");
    }

    @Test
    void theRecordIsOneJsonStringWithItsStateFingerprintAndResult() {
        String ns = namespace();
        store.reserve(ns, "t1", FP, LEASE);
        store.complete(ns, "t1", FP, StoredResult.of("{\"id\":\"ch_1\"}"), TTL);
        assertThat(raw.commands().type(store.keyOf(ns))).isEqualTo("string");
        assertThat(raw.commands().get(store.keyOf(ns))).contains("\"state\":\"completed\"").contains(FP);
        assertThat(((Completed) store.lookup(ns).orElseThrow()).result().json()).isEqualTo("{\"id\":\"ch_1\"}");
    }

    @Test
    void describesItselfWithTheServersVersionAndAddress() {
        assertThat(store.describe().name()).isEqualTo("redis");
        assertThat(store.describe().serverVersion()).matches("\\d+\\.\\d+.*");
        assertThat(store.describe().address()).isEqualTo(backend.server().address());
    }
}
