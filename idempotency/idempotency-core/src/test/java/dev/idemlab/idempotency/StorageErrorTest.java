package dev.idemlab.idempotency;

import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Completed;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.StoredResult;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idemlab.provider.Charge;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.idemlab.idempotency.RaceStage.CHARGE;
import static dev.idemlab.idempotency.RaceStage.chargeCall;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Storage errors that are not an outage: a poll or a write that times out once under load. Found by
 * the load harness: a waiter that failed open on one timed-out poll charged a second time.
 */
class StorageErrorTest {

    private final RaceStage stage = new RaceStage();
    private final ExecutorService callers = Executors.newCachedThreadPool();
    private final FakeTicker ticker = new FakeTicker();

    @AfterEach
    void stopCallers() {
        stage.openAll(8);
        callers.shutdownNow();
    }

    /**
     * A real store whose lookups fail while {@code failingLookups} is positive, counting down, and whose
     * reserves fail while {@code failingReserves} is set.
     */
    private static final class FlakyLookups extends ForwardingIdempotencyStore {
        final AtomicInteger failingLookups = new AtomicInteger();
        final java.util.concurrent.atomic.AtomicBoolean failingReserves = new java.util.concurrent.atomic.AtomicBoolean();
        final Semaphore failures = new Semaphore(0);

        FlakyLookups(InMemoryIdempotencyStore delegate) {
            super(delegate);
        }

        @Override
        public Optional<IdempotencyRecord> lookup(String namespace) {
            if (failingLookups.getAndUpdate(n -> n > 0 ? n - 1 : n) != 0) {
                failures.release();
                throw new IdempotencyStoreException("flaky", namespace, "command timed out", null);
            }
            return super.lookup(namespace);
        }

        @Override
        public dev.idemlab.idempotency.spi.Reservation reserve(String namespace, String token, String fingerprint,
                                                             Duration lease) {
            if (failingReserves.get()) {
                throw new IdempotencyStoreException("flaky", namespace, "connection reset", null);
            }
            return super.reserve(namespace, token, fingerprint, lease);
        }
    }

    private CompletableFuture<Charge> charge(IdempotencyCoordinator coordinator) {
        return stage.execute(coordinator, callers);
    }

    @Test
    void aWaiterWhosePollsTimeOutKeepsWaitingAndReplaysInsteadOfChargingAgain() throws Exception {
        FlakyLookups store = new FlakyLookups(new InMemoryIdempotencyStore(ticker));
        store.failingLookups.set(Integer.MAX_VALUE);
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(stage.observe(store)).ticker(ticker).build();
        CompletableFuture<Charge> a = charge(coordinator);
        stage.awaitCallsInsideProvider(1);
        CompletableFuture<Charge> b = charge(coordinator);
        stage.awaitCallersFindingKeyHeld(1);
        assertThat(store.failures.tryAcquire(3, 30, TimeUnit.SECONDS)).isTrue();
        store.failingLookups.set(0);
        stage.open(1);

        assertThat(a.get(30, TimeUnit.SECONDS).id()).isEqualTo("ch_1");
        assertThat(b.get(30, TimeUnit.SECONDS).id()).isEqualTo("ch_1");
        assertThat(stage.provider.chargeIds()).containsExactly("ch_1");
        assertThat(coordinator.stats().storageErrors().get(StorePhase.LOOKUP)).isGreaterThanOrEqualTo(3);
        assertThat(coordinator.stats().count(Outcome.WAITED)).isEqualTo(1);
    }

    @Test
    void aWaiterContendsAgainOnceTheLeaseItSawWouldHaveRunOutAndFailsOpenOnTheFailingReserve() throws Exception {
        FlakyLookups store = new FlakyLookups(new InMemoryIdempotencyStore(ticker));
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(stage.observe(store)).ticker(ticker)
                .config(IdempotencyConfig.custom().lease(Duration.ofSeconds(5)).build()).build();
        CompletableFuture<Charge> a = charge(coordinator);
        stage.awaitCallsInsideProvider(1);
        store.failingLookups.set(Integer.MAX_VALUE);
        CompletableFuture<Charge> b = charge(coordinator);
        stage.awaitCallersFindingKeyHeld(1);
        store.failingReserves.set(true); // B has seen the holder; now the whole store fails
        assertThat(store.failures.tryAcquire(2, 30, TimeUnit.SECONDS)).isTrue();
        assertThat(b).isNotDone();

        // Past the lease B saw (5 s) and short of its wait's deadline (lease plus the 1 s margin): a jump
        // onto the deadline itself would let B, caught between a failed poll and its next deadline
        // check, give up as in progress instead of failing open.
        ticker.advance(Duration.ofMillis(5_500)); // the lease B saw has run out; the store still fails
        stage.awaitCallsInsideProvider(1);      // so B contends again, its reserve fails, and it fails open
        stage.openAll(2);
        assertThat(b.get(30, TimeUnit.SECONDS).id()).isIn("ch_1", "ch_2");
        a.get(30, TimeUnit.SECONDS);
        assertThat(coordinator.stats().count(Outcome.FAILED_OPEN)).isEqualTo(1);
        assertThat(coordinator.stats().storageErrors().get(StorePhase.RESERVE)).isEqualTo(1);
    }

    @Test
    void aResultWhoseFirstCompleteTimesOutIsStoredByTheRetry() {
        AtomicInteger completes = new AtomicInteger();
        ForwardingIdempotencyStore store = new ForwardingIdempotencyStore(new InMemoryIdempotencyStore(ticker)) {
            @Override
            public boolean complete(String namespace, String token, String fingerprint, StoredResult result,
                                    Duration ttl) {
                if (completes.getAndIncrement() == 0) {
                    throw new IdempotencyStoreException("flaky", namespace, IdempotencyStoreException.Failure.TIMEOUT,
                            "command timed out", null);
                }
                return super.complete(namespace, token, fingerprint, result, ttl);
            }
        };
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(store).ticker(ticker).build();
        stage.openAll(2);
        String first = coordinator.execute(chargeCall("k1", 10), CHARGE, () -> stage.provider.charge("order-42", 10, "k1")).id();
        assertThat(store.lookup(chargeCall("k1", 10).namespace())).containsInstanceOf(Completed.class);
        String replay = coordinator.execute(chargeCall("k1", 10), CHARGE, () -> stage.provider.charge("order-42", 10, "k1")).id();

        assertThat(replay).isEqualTo(first);
        assertThat(stage.provider.chargeIds()).containsExactly("ch_1");
        // A timeout is a stall: retried within the patience, it is not a storage error.
        assertThat(completes).hasValue(2);
        assertThat(coordinator.stats().storageErrors()).containsEntry(StorePhase.COMPLETE, 0L);
        assertThat(coordinator.stats().duplicateRisk()).isZero();
        assertThat(coordinator.stats().stale()).isZero();
    }

    @Test
    void aReserveThatLandedButTimedOutFailsOpenAndStillLeavesARecordToReplay() {
        AtomicInteger reserves = new AtomicInteger();
        ForwardingIdempotencyStore store = new ForwardingIdempotencyStore(new InMemoryIdempotencyStore(ticker)) {
            @Override
            public dev.idemlab.idempotency.spi.Reservation reserve(String namespace, String token, String fingerprint,
                                                                 Duration lease) {
                dev.idemlab.idempotency.spi.Reservation landed = super.reserve(namespace, token, fingerprint, lease);
                if (reserves.getAndIncrement() == 0) {
                    throw new IdempotencyStoreException("flaky", namespace, "reply timed out", null);
                }
                return landed;
            }
        };
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(store).ticker(ticker).build();
        stage.openAll(2);
        IdempotentResult<Charge> first = coordinator.call(chargeCall("k1", 10), CHARGE,
                () -> stage.provider.charge("order-42", 10, "k1"));
        // The landed marker is completed in the background once the caller has its answer.
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() ->
                store.lookup(chargeCall("k1", 10).namespace()).orElse(null) instanceof Completed);
        IdempotentResult<Charge> retry = coordinator.call(chargeCall("k1", 10), CHARGE,
                () -> stage.provider.charge("order-42", 10, "k1"));

        assertThat(first.outcome()).isEqualTo(Outcome.FAILED_OPEN);
        assertThat(retry.outcome()).isEqualTo(Outcome.REPLAYED);
        assertThat(retry.value()).isEqualTo(first.value());
        assertThat(stage.provider.chargeIds()).containsExactly("ch_1");
    }

    private static IdempotencyStoreException failure(String namespace, IdempotencyStoreException.Failure kind) {
        return new IdempotencyStoreException("flaky", namespace, kind, kind + " injected", null);
    }

    @Test
    void aReserveWhoseFirstTryTimedOutIsSettledEvenWhenItsRetryFoundTheConnectionDropped() {
        // Issue 24: the first try landed, its reply was lost; the patience retry was refused. The last
        // error alone says "never landed"; the first one says otherwise, and wins.
        AtomicInteger reserves = new AtomicInteger();
        ForwardingIdempotencyStore store = new ForwardingIdempotencyStore(new InMemoryIdempotencyStore(ticker)) {
            @Override
            public dev.idemlab.idempotency.spi.Reservation reserve(String namespace, String token, String fingerprint,
                                                                 Duration lease) {
                int n = reserves.getAndIncrement();
                if (n == 0) {
                    super.reserve(namespace, token, fingerprint, lease);
                    throw failure(namespace, IdempotencyStoreException.Failure.TIMEOUT);
                }
                if (n == 1) {
                    throw failure(namespace, IdempotencyStoreException.Failure.UNREACHABLE);
                }
                return super.reserve(namespace, token, fingerprint, lease);
            }
        };
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(store).ticker(ticker).build();
        stage.openAll(2);
        IdempotentResult<Charge> first = coordinator.call(chargeCall("k1", 10), CHARGE,
                () -> stage.provider.charge("order-42", 10, "k1"));
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() ->
                store.lookup(chargeCall("k1", 10).namespace()).orElse(null) instanceof Completed);
        IdempotentResult<Charge> retry = coordinator.call(chargeCall("k1", 10), CHARGE,
                () -> stage.provider.charge("order-42", 10, "k1"));

        assertThat(first.outcome()).isEqualTo(Outcome.FAILED_OPEN);
        assertThat(retry.outcome()).isEqualTo(Outcome.REPLAYED);
        assertThat(retry.value()).isEqualTo(first.value());
        assertThat(stage.provider.chargeIds()).containsExactly("ch_1");
    }

    @Test
    void aCompletionThatLandedOnItsTimedOutFirstTryIsExecutedNotStale() {
        AtomicInteger completes = new AtomicInteger();
        ForwardingIdempotencyStore store = new ForwardingIdempotencyStore(new InMemoryIdempotencyStore(ticker)) {
            @Override
            public boolean complete(String namespace, String token, String fingerprint, StoredResult result,
                                    Duration ttl) {
                boolean written = super.complete(namespace, token, fingerprint, result, ttl);
                if (completes.getAndIncrement() == 0) {
                    throw failure(namespace, IdempotencyStoreException.Failure.TIMEOUT); // landed; the reply lost
                }
                return written;
            }
        };
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(store).ticker(ticker).build();
        stage.openAll(2);
        IdempotentResult<Charge> first = coordinator.call(chargeCall("k1", 10), CHARGE,
                () -> stage.provider.charge("order-42", 10, "k1"));
        IdempotentResult<Charge> replay = coordinator.call(chargeCall("k1", 10), CHARGE,
                () -> stage.provider.charge("order-42", 10, "k1"));

        assertThat(completes).as("the retry found the record completed").hasValue(2);
        assertThat(first.outcome()).isEqualTo(Outcome.EXECUTED);
        assertThat(coordinator.stats().stale()).isZero();
        assertThat(replay.outcome()).isEqualTo(Outcome.REPLAYED);
        assertThat(stage.provider.chargeIds()).containsExactly("ch_1");
    }

    @Test
    void aReleaseThatLandedOnItsTimedOutFirstTryIsNotStaleAndOneThatKeepsFailingIsSettledLater() {
        AtomicInteger releases = new AtomicInteger();
        ForwardingIdempotencyStore store = new ForwardingIdempotencyStore(new InMemoryIdempotencyStore(ticker)) {
            @Override
            public boolean release(String namespace, String token) {
                int n = releases.getAndIncrement();
                if (n == 0) {
                    super.release(namespace, token);
                    throw failure(namespace, IdempotencyStoreException.Failure.TIMEOUT); // landed; the reply lost
                }
                if (n == 2) {
                    throw failure(namespace, IdempotencyStoreException.Failure.TIMEOUT); // did not land
                }
                if (n == 3) {
                    throw failure(namespace, IdempotencyStoreException.Failure.UNREACHABLE);
                }
                return super.release(namespace, token);
            }
        };
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(store).ticker(ticker)
                .config(IdempotencyConfig.custom().policy(InFlightPolicy.RAISE).build()).build();
        String namespace = chargeCall("k1", 10).namespace();
        for (int attempt = 0; attempt < 2; attempt++) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> coordinator.call(chargeCall("k1", 10), CHARGE,
                    () -> {
                        throw new IllegalStateException("declined");
                    })).isInstanceOf(IllegalStateException.class);
        }
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> store.lookup(namespace).isEmpty());

        assertThat(releases.get()).as("two releases, the second settled in the background").isGreaterThanOrEqualTo(5);
        assertThat(coordinator.stats().stale()).isZero();
        assertThat(coordinator.stats().storageErrors().get(StorePhase.RELEASE)).isEqualTo(1);
    }
}
