package dev.idemlab.idempotency.tck;

import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Completed;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Pending;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.spi.StoreDescription;
import dev.idemlab.idempotency.spi.StoredResult;
import org.junit.jupiter.api.Test;
import dev.idemlab.idempotency.spi.CompletionNotifications;
import dev.idemlab.idempotency.spi.CompletionNotifications.Ending;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The contract every {@link IdempotencyStore} passes, published as a JUnit 5 test kit: a test class
 * of a store extends this one, supplies the store and a way to make a record expire by the store's
 * own clock, and runs every rule the coordinator relies on. The memory, Redis and PostgreSQL stores
 * run it unchanged, on real servers; so can a DynamoDB or MySQL store.
 *
 * <pre>{@code
 * class MyStoreTest extends IdempotencyStoreContract {
 *     protected IdempotencyStore store() { return store; }
 *     protected void forceExpiry(String namespace) { ... }   // e.g. PEXPIRE key 1
 * }
 * }</pre>
 *
 * <p>Stores on a server's clock let real time pass in {@link #elapse}; a store on an injected
 * ticker overrides it to advance the ticker. The tests never assert how long anything took.
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

    /** A lease short enough to run out within a test on a real server's clock. */
    protected static final Duration SHORT_LEASE = Duration.ofMillis(300);

    /**
     * Lets at least {@code time} pass on the store's clock. The default waits in real time, as a
     * store on a server's clock needs; a store on an injected ticker advances it instead.
     */
    protected void elapse(Duration time) {
        long deadline = System.nanoTime() + time.toNanos();
        for (long left = time.toNanos(); left > 0; left = deadline - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
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
        assertThat(store().complete(ns, "t1", FP, StoredResult.of("{\"id\":\"ch_1\"}"), TTL)).isTrue();
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
        assertThat(store().complete(ns, "intruder", FP, StoredResult.of("\"x\""), TTL)).isFalse();
        assertThat(((Pending) store().lookup(ns).orElseThrow()).token()).isEqualTo("t1");
    }

    @Test
    void completeOnAKeyNobodyHoldsWritesTheRecordWithTheGivenFingerprint() {
        String ns = namespace();
        assertThat(store().complete(ns, "t1", FP, StoredResult.of("\"x\""), TTL)).isTrue();
        Completed completed = (Completed) store().lookup(ns).orElseThrow();
        assertThat(completed.fingerprint()).isEqualTo(FP);
        assertThat(completed.result().json()).isEqualTo("\"x\"");
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
        store().complete(ns, "t1", FP, StoredResult.of("1"), TTL);
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
        assertThat(store().complete(ns, "stale", FP, StoredResult.of("\"stale\""), TTL)).isFalse();
        assertThat(store().release(ns, "stale")).isFalse();
        assertThat(((Pending) store().lookup(ns).orElseThrow()).token()).isEqualTo("owner");
        assertThat(store().complete(ns, "owner", FP, StoredResult.of("\"owner\""), TTL)).isTrue();
        assertThat(((Completed) store().lookup(ns).orElseThrow()).result().json()).isEqualTo("\"owner\"");
    }

    @Test
    void aHolderWhoseLeaseRanOutCompletesWhenNobodyTookTheKeyOver() {
        String ns = namespace();
        store().reserve(ns, "t1", FP, LEASE);
        forceExpiry(ns);
        assertThat(store().complete(ns, "t1", FP, StoredResult.of("1"), TTL)).isTrue();
        Completed completed = (Completed) store().lookup(ns).orElseThrow();
        assertThat(completed.result().json()).isEqualTo("1");
        assertThat(store().reserve(ns, "t2", FP, LEASE)).isInstanceOf(Reservation.Found.class);
    }

    // ---- the heartbeat: renew ----

    @Test
    void renewExtendsTheHoldersLease() {
        String ns = namespace();
        store().reserve(ns, "t1", FP, SHORT_LEASE);
        assertThat(store().renew(ns, "t1", LEASE)).isTrue();
        elapse(SHORT_LEASE.multipliedBy(2));
        Pending pending = (Pending) store().lookup(ns).orElseThrow();
        assertThat(pending.token()).isEqualTo("t1");
        assertThat(pending.leaseRemaining()).isGreaterThan(SHORT_LEASE);
    }

    @Test
    void renewByAnotherTokenIsRefusedAndChangesNothing() {
        String ns = namespace();
        store().reserve(ns, "t1", FP, SHORT_LEASE);
        assertThat(store().renew(ns, "intruder", LEASE)).isFalse();
        elapse(SHORT_LEASE.multipliedBy(2));
        assertThat(store().lookup(ns)).isEmpty();
    }

    @Test
    void renewAfterTheLeaseRanOutOrOfACompletedRecordIsRefused() {
        String expired = namespace();
        store().reserve(expired, "t1", FP, SHORT_LEASE);
        elapse(SHORT_LEASE.multipliedBy(2));
        assertThat(store().renew(expired, "t1", LEASE)).isFalse();
        assertThat(store().lookup(expired)).isEmpty();
        String completed = namespace();
        store().reserve(completed, "t1", FP, LEASE);
        store().complete(completed, "t1", FP, StoredResult.of("1"), TTL);
        assertThat(store().renew(completed, "t1", LEASE)).isFalse();
        assertThat(store().lookup(completed)).containsInstanceOf(Completed.class);
    }

    // ---- fencing ----

    @Test
    void everyReservationOfAKeyGetsAGreaterFence() {
        String ns = namespace();
        long first = ((Reservation.Acquired) store().reserve(ns, "t1", FP, LEASE)).fence();
        forceExpiry(ns);
        long second = ((Reservation.Acquired) store().reserve(ns, "t2", FP, LEASE)).fence();
        store().release(ns, "t2");
        long third = ((Reservation.Acquired) store().reserve(ns, "t3", FP, LEASE)).fence();
        assertThat(first).isPositive();
        assertThat(second).isGreaterThan(first);
        assertThat(third).isGreaterThan(second);
    }

    @Test
    void anExpiredCompletedRecordCountsAsAbsent() {
        String ns = namespace();
        store().reserve(ns, "t1", FP, LEASE);
        store().complete(ns, "t1", FP, StoredResult.of("1"), TTL);
        forceExpiry(ns);
        assertThat(store().lookup(ns)).isEmpty();
        assertThat(store().reserve(ns, "t2", FP, LEASE)).isInstanceOf(Reservation.Acquired.class);
    }

    @Test
    void aResultNotStoredRoundTripsWithItsReason() {
        String ns = namespace();
        store().reserve(ns, "t1", FP, LEASE);
        store().complete(ns, "t1", FP, StoredResult.notStored("too large: 70000 bytes"), TTL);
        Completed completed = (Completed) store().lookup(ns).orElseThrow();
        assertThat(completed.result().isStored()).isFalse();
        assertThat(completed.result().notStoredReason()).isEqualTo("too large: 70000 bytes");
    }

    @Test
    void resultsRoundTripExactlyWithQuotesNewlinesAndNonAsciiText() {
        String ns = namespace();
        String json = "{\"note\":\"line1\\nline2 \\\"quoted\\\" caf\u00e9 \uD83D\uDCB3\",\"amount\":10}";
        store().reserve(ns, "t1", FP, LEASE);
        store().complete(ns, "t1", FP, StoredResult.of(json), TTL);
        assertThat(((Completed) store().lookup(ns).orElseThrow()).result().json()).isEqualTo(json);
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

    // ---- time: leases and ttls by the store's own clock ----

    @Test
    void aReservationExpiresWithItsLease() {
        String ns = namespace();
        store().reserve(ns, "t1", FP, SHORT_LEASE);
        elapse(SHORT_LEASE.multipliedBy(2));
        assertThat(store().lookup(ns)).isEmpty();
        assertThat(store().reserve(ns, "t2", FP, LEASE)).isInstanceOf(Reservation.Acquired.class);
    }

    @Test
    void aCompletedRecordLivesForItsTtlNotForTheLeaseOfTheReservationItCameFrom() {
        String ns = namespace();
        store().reserve(ns, "t1", FP, SHORT_LEASE);
        assertThat(store().complete(ns, "t1", FP, StoredResult.of("\"ch_1\""), TTL)).isTrue();
        elapse(SHORT_LEASE.multipliedBy(2));
        assertThat(store().lookup(ns)).containsInstanceOf(Completed.class);
        Reservation retry = store().reserve(ns, "t2", FP, LEASE);
        assertThat(retry).isInstanceOf(Reservation.Found.class);
        assertThat(((Reservation.Found) retry).record()).isInstanceOf(Completed.class);
    }

    @Test
    void aCompletedRecordExpiresWithItsTtl() {
        String ns = namespace();
        store().reserve(ns, "t1", FP, SHORT_LEASE);
        store().complete(ns, "t1", FP, StoredResult.of("1"), SHORT_LEASE.multipliedBy(2));
        elapse(SHORT_LEASE.multipliedBy(4));
        assertThat(store().lookup(ns)).isEmpty();
        assertThat(store().reserve(ns, "t2", FP, LEASE)).isInstanceOf(Reservation.Acquired.class);
    }

    @Test
    void aReservationIsStillLiveWellBeforeItsLeaseRunsOut() {
        String ns = namespace();
        store().reserve(ns, "t1", FP, LEASE);
        elapse(SHORT_LEASE);
        assertThat(store().lookup(ns)).containsInstanceOf(Pending.class);
        assertThat(store().reserve(ns, "t2", FP, LEASE)).isInstanceOf(Reservation.Found.class);
    }

    @Test
    void theRemainingLeaseShrinksAsTimePasses() {
        String ns = namespace();
        store().reserve(ns, "t1", FP, LEASE);
        elapse(SHORT_LEASE);
        Pending seen = (Pending) store().lookup(ns).orElseThrow();
        assertThat(seen.leaseRemaining()).isLessThanOrEqualTo(LEASE.minus(SHORT_LEASE));
        Pending found = (Pending) ((Reservation.Found) store().reserve(ns, "t2", FP, LEASE)).record();
        assertThat(found.leaseRemaining()).isLessThanOrEqualTo(LEASE.minus(SHORT_LEASE));
    }

    @Test
    void theHoldersOwnReserveRefreshesItsLease() {
        String ns = namespace();
        store().reserve(ns, "t1", FP, LEASE);
        elapse(SHORT_LEASE.multipliedBy(2));
        Duration before = ((Pending) store().lookup(ns).orElseThrow()).leaseRemaining();
        assertThat(store().reserve(ns, "t1", FP, LEASE)).isInstanceOf(Reservation.Acquired.class);
        Duration after = ((Pending) store().lookup(ns).orElseThrow()).leaseRemaining();
        assertThat(after).isGreaterThan(before);
    }

    @Test
    void releasingOnesOwnExpiredReservationChangesNothing() {
        String ns = namespace();
        store().reserve(ns, "t1", FP, SHORT_LEASE);
        elapse(SHORT_LEASE.multipliedBy(2));
        assertThat(store().release(ns, "t1")).isFalse();
        assertThat(store().lookup(ns)).isEmpty();
        store().reserve(ns, "t2", FP, LEASE);
        assertThat(store().release(ns, "t1")).isFalse();
        assertThat(((Pending) store().lookup(ns).orElseThrow()).token()).isEqualTo("t2");
    }

    // ---- races between the holder's own calls, and with a newcomer ----

    @Test
    void completeRacingReleaseNeverLeavesTheKeyWithoutTheCompletedRecord() throws Exception {
        for (int round = 0; round < 20; round++) {
            String ns = namespace();
            store().reserve(ns, "t1", FP, LEASE);
            List<Boolean> answers = race(
                    () -> store().complete(ns, "t1", FP, StoredResult.of("\"ch_1\""), TTL),
                    () -> store().release(ns, "t1"));
            // Release first frees the key and the complete then fills it (late completion); complete first
            // turns the marker into a record that release must not delete. Either way the record stands.
            assertThat(answers.get(0)).as("complete, round %d", round).isTrue();
            assertThat(store().lookup(ns)).as("round %d", round).containsInstanceOf(Completed.class);
        }
    }

    @Test
    void aLateCompleteRacingATakeoverNeverLosesTheNewOwnersReservationOrBothWin() throws Exception {
        for (int round = 0; round < 10; round++) {
            String ns = namespace();
            store().reserve(ns, "old", FP, SHORT_LEASE);
            elapse(SHORT_LEASE.multipliedBy(2));
            List<Object> answers = race(
                    () -> store().complete(ns, "old", FP, StoredResult.of("\"ch_1\""), TTL),
                    () -> store().reserve(ns, "new", FP, LEASE));
            boolean oldCompleted = (Boolean) answers.get(0);
            Reservation takeover = (Reservation) answers.get(1);
            IdempotencyRecord now = store().lookup(ns).orElseThrow();
            if (takeover instanceof Reservation.Acquired) {
                assertThat(now).as("round %d: the new owner acquired, so its marker stands", round)
                        .isInstanceOf(Pending.class);
                assertThat(((Pending) now).token()).isEqualTo("new");
            } else {
                assertThat(oldCompleted).as("round %d: the newcomer was turned away only by a completed record", round)
                        .isTrue();
                assertThat(((Reservation.Found) takeover).record()).isInstanceOf(Completed.class);
                assertThat(now).isInstanceOf(Completed.class);
            }
        }
    }

    // ---- notifications, for stores that wake their waiters ----

    @Test
    void aSubscriberIsToldWhenTheReservationCompletesAndWhenItIsReleasedAndWhatItIsToldIsTrue() throws Exception {
        CompletionNotifications notifying = CompletionNotifications.of(store());
        assumeTrue(notifying != null, "the store polls; it sends no notifications");
        String completed = namespace();
        String released = namespace();
        store().reserve(completed, "t1", FP, LEASE);
        store().reserve(released, "t2", FP, LEASE);
        BlockingQueue<Ending> toldCompleted = new LinkedBlockingQueue<>();
        BlockingQueue<Ending> toldReleased = new LinkedBlockingQueue<>();
        try (CompletionNotifications.Subscription a = notifying.subscribe(completed, toldCompleted::add);
             CompletionNotifications.Subscription b = notifying.subscribe(released, toldReleased::add)) {
            store().complete(completed, "t1", FP, StoredResult.of("{\"id\":\"ch_1\"}"), TTL);
            store().release(released, "t2");
            Ending onCompletion = toldCompleted.poll(10, TimeUnit.SECONDS);
            Ending onRelease = toldReleased.poll(10, TimeUnit.SECONDS);
            assertThat(onCompletion).as("told of the completion").isNotNull();
            assertThat(onRelease).as("told of the release").isNotNull();
            // A store may say nothing (UNKNOWN); what it does say must be what a waiter would read.
            if (!(onCompletion instanceof Ending.Unknown)) {
                assertThat(onCompletion).isInstanceOf(Ending.Completed.class);
                assertThat(onCompletion.endedReservation("t1")).isTrue();
                assertThat(onCompletion.endedReservation("t2")).isFalse();
                assertThat(((Ending.Completed) onCompletion).record()).isEqualTo(store().lookup(completed).orElseThrow());
            }
            if (!(onRelease instanceof Ending.Unknown)) {
                assertThat(onRelease).isEqualTo(new Ending.Released("t2"));
                assertThat(store().lookup(released)).isEmpty();
            }
        }
    }

    @Test
    void aWaiterThatSubscribesThenReReadsNeverMissesACompletionRacingItsSubscription() throws Exception {
        CompletionNotifications notifying = CompletionNotifications.of(store());
        assumeTrue(notifying != null, "the store polls; it sends no notifications");
        for (int round = 0; round < 20; round++) {
            String ns = namespace();
            store().reserve(ns, "t1", FP, LEASE);
            CountDownLatch told = new CountDownLatch(1);
            List<Boolean> answers = race(
                    () -> store().complete(ns, "t1", FP, StoredResult.of("1"), TTL),
                    () -> {
                        try (CompletionNotifications.Subscription s = notifying.subscribe(ns, told::countDown)) {
                            // Subscribe, then re-read, then wait: whichever came first, the waiter learns of it.
                            if (store().lookup(ns).orElseThrow() instanceof Completed) {
                                return true;
                            }
                            return told.await(10, TimeUnit.SECONDS);
                        }
                    });
            assertThat(answers.get(1)).as("round %d: the waiter learned of the completion", round).isTrue();
        }
    }

    // ---- keys and results at their limits ----

    @Test
    void keysOf255CodePointsAndNonAsciiKeysAreDistinctRecords() {
        String emoji = "\uD83D\uDCB3";
        String longKey = "\u00e9".repeat(127) + emoji.repeat(127) + "a"; // 255 code points, 382 UTF-16 units
        String operation = "payment.charge." + UUID.randomUUID(); // fresh records on a shared server
        String ns1 = operation + ":" + longKey;
        String ns2 = operation + ":" + longKey.substring(0, longKey.length() - 1) + "b";
        store().reserve(ns1, "t1", FP, LEASE);
        assertThat(store().reserve(ns2, "t2", OTHER_FP, LEASE)).isInstanceOf(Reservation.Acquired.class);
        store().complete(ns1, "t1", FP, StoredResult.of("\"one\""), TTL);
        store().complete(ns2, "t2", FP, StoredResult.of("\"two\""), TTL);
        assertThat(((Completed) store().lookup(ns1).orElseThrow()).result().json()).isEqualTo("\"one\"");
        assertThat(((Completed) store().lookup(ns2).orElseThrow()).result().json()).isEqualTo("\"two\"");
        assertThat(store().lookup(ns2).orElseThrow().fingerprint()).isEqualTo(OTHER_FP);
        String greek = "payment.charge:\u03ba\u03bb\u03b5\u03b9\u03b4\u03af-" + UUID.randomUUID();
        store().reserve(greek, "t3", FP, LEASE);
        assertThat(((Pending) store().lookup(greek).orElseThrow()).token()).isEqualTo("t3");
    }

    @Test
    void resultsNearTheSizeLimitRoundTrip() {
        String ns = namespace();
        String json = "\"" + "x\u00e9".repeat(64 * 1024 / 3 - 2) + "\"";
        store().reserve(ns, "t1", FP, LEASE);
        assertThat(store().complete(ns, "t1", FP, StoredResult.of(json), TTL)).isTrue();
        assertThat(((Completed) store().lookup(ns).orElseThrow()).result().json()).isEqualTo(json);
    }

    /** Runs both calls at once, released together, and returns their answers in order. */
    @SafeVarargs
    protected static <T> List<T> race(Callable<? extends T>... calls) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(calls.length);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<? extends T>> futures = new ArrayList<>();
            for (Callable<? extends T> call : calls) {
                futures.add(pool.submit(() -> {
                    start.await();
                    return call.call();
                }));
            }
            start.countDown();
            List<T> answers = new ArrayList<>();
            for (Future<? extends T> future : futures) {
                answers.add(future.get(30, TimeUnit.SECONDS));
            }
            return answers;
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

    /**
     * The key prefix feeds every downstream key the coordinator derives: it must be there, keep to the
     * record names' rule (no brace) and stay the same while the store is open, or a retry would pass
     * the provider another key than its first attempt did.
     */
    @Test
    void namesAStableKeyPrefixWithoutBraces() {
        String prefix = store().keyPrefix();
        assertThat(prefix).isNotNull().doesNotContain("{", "}");
        assertThat(store().keyPrefix()).isEqualTo(prefix);
    }
}
