package dev.idemlab.idempotency.spi;

import dev.idemlab.idempotency.spi.IdempotencyRecord.Completed;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Pending;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The one contract every {@link IdempotencyStore} passes, run unchanged against each implementation
 * on a real server. A subclass supplies the store and a way to make a record's lease or ttl run out
 * by the store's own clock.
 */
public abstract class IdempotencyStoreContract {

    protected static final Duration LEASE = Duration.ofSeconds(30);
    protected static final Duration TTL = Duration.ofHours(1);
    protected static final String FP = "a".repeat(64);
    protected static final String OTHER_FP = "b".repeat(64);

    /** The store under test, fresh or at least empty of the namespaces these tests make up. */
    protected abstract IdempotencyStore store();

    /** Makes the live record under {@code namespace} expire, by the store's clock. */
    protected abstract void forceExpiry(String namespace);

    protected static String namespace() {
        return "payment.charge:" + UUID.randomUUID();
    }

    @Test
    void reserveOnAnAbsentKeyAcquiresAndLeavesAPendingMarkerWithItsLease() {
        String ns = namespace();
        assertThat(store().reserve(ns, "t1", FP, LEASE)).isInstanceOf(Reservation.Acquired.class);
        Pending pending = (Pending) store().lookup(ns).orElseThrow();
        assertThat(pending.token()).isEqualTo("t1");
        assertThat(pending.fingerprint()).isEqualTo(FP);
        assertThat(pending.leaseRemaining()).isPositive().isLessThanOrEqualTo(LEASE);
    }

    @Test
    void reserveOnAPendingKeyReturnsTheHoldersMarker() {
        String ns = namespace();
        store().reserve(ns, "t1", FP, LEASE);
        Reservation second = store().reserve(ns, "t2", FP, LEASE);
        assertThat(second).isInstanceOf(Reservation.Found.class);
        Pending pending = (Pending) ((Reservation.Found) second).record();
        assertThat(pending.token()).isEqualTo("t1");
        assertThat(pending.leaseRemaining()).isPositive().isLessThanOrEqualTo(LEASE);
    }

    @Test
    void reserveWithTheHoldersOwnTokenAcquiresAgainSoALostReplyCannotMakeItWaitOnItself() {
        String ns = namespace();
        store().reserve(ns, "t1", FP, LEASE);
        assertThat(store().reserve(ns, "t1", FP, LEASE)).isInstanceOf(Reservation.Acquired.class);
        assertThat(((Pending) store().lookup(ns).orElseThrow()).token()).isEqualTo("t1");
    }

    @Test
    void completeByTheHolderStoresTheResultForReplay() {
        String ns = namespace();
        store().reserve(ns, "t1", FP, LEASE);
        assertThat(store().complete(ns, "t1", StoredResult.of("{\"id\":\"ch_1\"}"), TTL)).isTrue();
        Completed completed = (Completed) store().lookup(ns).orElseThrow();
        assertThat(completed.fingerprint()).isEqualTo(FP);
        assertThat(completed.result()).isEqualTo(StoredResult.of("{\"id\":\"ch_1\"}"));
        Reservation later = store().reserve(ns, "t2", FP, LEASE);
        assertThat(((Reservation.Found) later).record()).isEqualTo(completed);
    }

    @Test
    void completeWithAnotherTokenIsRefusedAndChangesNothing() {
        String ns = namespace();
        store().reserve(ns, "t1", FP, LEASE);
        assertThat(store().complete(ns, "intruder", StoredResult.of("\"x\""), TTL)).isFalse();
        assertThat(((Pending) store().lookup(ns).orElseThrow()).token()).isEqualTo("t1");
    }

    @Test
    void completeOnAnAbsentKeyIsRefusedAndWritesNothing() {
        String ns = namespace();
        assertThat(store().complete(ns, "t1", StoredResult.of("\"x\""), TTL)).isFalse();
        assertThat(store().lookup(ns)).isEmpty();
    }

    @Test
    void releaseByTheHolderFreesTheKeyForTheNextAttempt() {
        String ns = namespace();
        store().reserve(ns, "t1", FP, LEASE);
        assertThat(store().release(ns, "t1")).isTrue();
        assertThat(store().lookup(ns)).isEmpty();
        assertThat(store().reserve(ns, "t2", FP, LEASE)).isInstanceOf(Reservation.Acquired.class);
    }

    @Test
    void releaseWithAnotherTokenIsRefusedAndKeepsTheMarker() {
        String ns = namespace();
        store().reserve(ns, "t1", FP, LEASE);
        assertThat(store().release(ns, "intruder")).isFalse();
        assertThat(((Pending) store().lookup(ns).orElseThrow()).token()).isEqualTo("t1");
    }

    @Test
    void releaseCannotDeleteACompletedRecord() {
        String ns = namespace();
        store().reserve(ns, "t1", FP, LEASE);
        store().complete(ns, "t1", StoredResult.of("1"), TTL);
        assertThat(store().release(ns, "t1")).isFalse();
        assertThat(store().lookup(ns)).containsInstanceOf(Completed.class);
    }

    @Test
    void anExpiredReservationCountsAsAbsentAndCanBeTakenOver() {
        String ns = namespace();
        store().reserve(ns, "t1", FP, LEASE);
        forceExpiry(ns);
        assertThat(store().lookup(ns)).isEmpty();
        assertThat(store().reserve(ns, "t2", OTHER_FP, LEASE)).isInstanceOf(Reservation.Acquired.class);
        Pending pending = (Pending) store().lookup(ns).orElseThrow();
        assertThat(pending.token()).isEqualTo("t2");
        assertThat(pending.fingerprint()).isEqualTo(OTHER_FP);
    }

    @Test
    void aStaleHolderCannotCompleteOrReleaseOverTheNewOwner() {
        String ns = namespace();
        store().reserve(ns, "stale", FP, LEASE);
        forceExpiry(ns);
        store().reserve(ns, "owner", FP, LEASE);
        assertThat(store().complete(ns, "stale", StoredResult.of("\"stale\""), TTL)).isFalse();
        assertThat(store().release(ns, "stale")).isFalse();
        assertThat(((Pending) store().lookup(ns).orElseThrow()).token()).isEqualTo("owner");
        assertThat(store().complete(ns, "owner", StoredResult.of("\"owner\""), TTL)).isTrue();
        assertThat(((Completed) store().lookup(ns).orElseThrow()).result().json()).isEqualTo("\"owner\"");
    }

    @Test
    void anExpiredHolderCannotCompleteEvenBeforeAnyoneTookOver() {
        String ns = namespace();
        store().reserve(ns, "t1", FP, LEASE);
        forceExpiry(ns);
        assertThat(store().complete(ns, "t1", StoredResult.of("1"), TTL)).isFalse();
        assertThat(store().lookup(ns)).isEmpty();
    }

    @Test
    void anExpiredCompletedRecordCountsAsAbsent() {
        String ns = namespace();
        store().reserve(ns, "t1", FP, LEASE);
        store().complete(ns, "t1", StoredResult.of("1"), TTL);
        forceExpiry(ns);
        assertThat(store().lookup(ns)).isEmpty();
        assertThat(store().reserve(ns, "t2", FP, LEASE)).isInstanceOf(Reservation.Acquired.class);
    }

    @Test
    void aResultNotStoredRoundTripsWithItsReason() {
        String ns = namespace();
        store().reserve(ns, "t1", FP, LEASE);
        store().complete(ns, "t1", StoredResult.notStored("too large: 70000 bytes"), TTL);
        Completed completed = (Completed) store().lookup(ns).orElseThrow();
        assertThat(completed.result().isStored()).isFalse();
        assertThat(completed.result().notStoredReason()).isEqualTo("too large: 70000 bytes");
    }

    @Test
    void resultsRoundTripExactlyWithQuotesNewlinesAndNonAsciiText() {
        String ns = namespace();
        String json = "{\"note\":\"line1\\nline2 \\\"quoted\\\" caf\u00e9 \uD83D\uDCB3\",\"amount\":10}";
        store().reserve(ns, "t1", FP, LEASE);
        store().complete(ns, "t1", StoredResult.of(json), TTL);
        assertThat(((Completed) store().lookup(ns).orElseThrow()).result().json()).isEqualTo(json);
    }

    @Test
    void putIfAbsentLetsTheFirstWriterWin() {
        String ns = namespace();
        assertThat(store().putIfAbsent(ns, FP, StoredResult.of("\"ch_1\""), TTL)).isEmpty();
        IdempotencyRecord existing = store().putIfAbsent(ns, FP, StoredResult.of("\"ch_2\""), TTL).orElseThrow();
        assertThat(((Completed) existing).result().json()).isEqualTo("\"ch_1\"");
        assertThat(((Completed) store().lookup(ns).orElseThrow()).result().json()).isEqualTo("\"ch_1\"");
    }

    @Test
    void putIfAbsentDoesNotOverwriteALiveReservation() {
        String ns = namespace();
        store().reserve(ns, "t1", FP, LEASE);
        assertThat(store().putIfAbsent(ns, FP, StoredResult.of("1"), TTL)).containsInstanceOf(Pending.class);
    }

    @Test
    void oneKeyUnderTwoOperationsIsTwoRecords() {
        String key = UUID.randomUUID().toString();
        assertThat(store().reserve("order.create:" + key, "t1", FP, LEASE)).isInstanceOf(Reservation.Acquired.class);
        assertThat(store().reserve("order.cancel:" + key, "t2", FP, LEASE)).isInstanceOf(Reservation.Acquired.class);
    }

    @Test
    void concurrentReservesOnOneKeyHaveExactlyOneWinner() throws Exception {
        String ns = namespace();
        int contenders = 8;
        ExecutorService pool = Executors.newFixedThreadPool(contenders);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Reservation>> answers = new ArrayList<>();
            for (int i = 0; i < contenders; i++) {
                String token = "t" + i;
                Callable<Reservation> reserve = () -> {
                    start.await();
                    return store().reserve(ns, token, FP, LEASE);
                };
                answers.add(pool.submit(reserve));
            }
            start.countDown();
            int acquired = 0;
            for (Future<Reservation> answer : answers) {
                if (answer.get(30, TimeUnit.SECONDS) instanceof Reservation.Acquired) {
                    acquired++;
                }
            }
            assertThat(acquired).isEqualTo(1);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void describesItself() {
        StoreDescription description = store().describe();
        assertThat(description.name()).isNotBlank();
        assertThat(description.serverVersion()).isNotBlank();
    }
}
