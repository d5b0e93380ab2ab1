package dev.idemlab.idempotency;

import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.StoredResult;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idemlab.provider.Charge;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 24: a completion that fails while renewals pass (a PostgreSQL pool busy or a circuit open for
 * the store's other calls, renewals on their own connections) is retried in the background for longer
 * than one lease, renewing meanwhile, so that a retry replays the first charge instead of taking over
 * a key whose holder was done. The nemesis found it on PostgreSQL: the settle gave up after one lease,
 * the renewals stopped with it, and a waiter charged again three seconds later. Time is a fake ticker
 * that only the test moves; the renewals run on the real timer.
 */
class CompletionSettleOutlastsALeaseTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration BEAT = Duration.ofMillis(50);

    private final RaceStage stage = new RaceStage();
    private final ExecutorService callers = Executors.newCachedThreadPool();
    private final FakeTicker ticker = new FakeTicker();

    @AfterEach
    void stopCallers() {
        stage.openAll(4);
        callers.shutdownNow();
    }

    /** A real store whose completions fail as an unreachable server while {@code failing} is set; renewals pass. */
    private final class FailingCompletions extends ForwardingIdempotencyStore {
        final AtomicBoolean failing = new AtomicBoolean(true);
        /** Renewals land, and their replies are lost (a timeout). */
        final AtomicBoolean renewalRepliesLost = new AtomicBoolean();
        final Semaphore failed = new Semaphore(0);
        final Semaphore renewed = new Semaphore(0);
        final Semaphore renewAttempts = new Semaphore(0);
        final Semaphore completed = new Semaphore(0);

        FailingCompletions() {
            super(new InMemoryIdempotencyStore(ticker));
        }

        @Override
        public boolean complete(String namespace, String token, String fingerprint, StoredResult result, Duration ttl) {
            if (failing.get()) {
                failed.release();
                throw new IdempotencyStoreException("flaky", namespace, IdempotencyStoreException.Failure.UNREACHABLE,
                        "complete refused", null);
            }
            boolean written = super.complete(namespace, token, fingerprint, result, ttl);
            completed.release();
            return written;
        }

        @Override
        public boolean renew(String namespace, String token, Duration lease) {
            boolean held = super.renew(namespace, token, lease);
            renewAttempts.release();
            if (renewalRepliesLost.get()) {
                throw new IdempotencyStoreException("flaky", namespace, IdempotencyStoreException.Failure.TIMEOUT,
                        "renew's reply lost", null);
            }
            renewed.release();
            return held;
        }
    }

    /** A coordinator on the fake ticker that beats every 50 ms and gives a failed call no patience. */
    private IdempotencyCoordinator coordinatorOn(FailingCompletions store) {
        return IdempotencyCoordinator.builder(store).ticker(ticker).config(IdempotencyConfig.custom().lease(LEASE)
                .heartbeatInterval(BEAT).storePatience(Duration.ofMillis(1)).build()).build();
    }

    private CompletableFuture<IdempotentResult<Charge>> charge(IdempotencyCoordinator coordinator) {
        return stage.call(coordinator, callers);
    }

    @Test
    void aCompletionThatFailsForLongerThanALeaseStillLandsAndTheRetryReplays() throws Exception {
        FailingCompletions store = new FailingCompletions();
        IdempotencyCoordinator coordinator = coordinatorOn(store);
        CompletableFuture<IdempotentResult<Charge>> holder = charge(coordinator);
        stage.awaitCallsInsideProvider(1);
        stage.open(1);
        IdempotentResult<Charge> first = holder.get(30, TimeUnit.SECONDS);
        assertThat(first.value().id()).isEqualTo("ch_1");
        assertThat(coordinator.stats().duplicateRisk()).isEqualTo(1);

        settleOutlastsALeaseAndTheRetryReplays(store, coordinator);
    }

    /**
     * The holder's renewals' replies were lost for a whole lease (they landed), so its lease ran out by
     * its own clock and its outcome says so; then they got through again, and its completion failed.
     * Found in review: the settle asked whether the lease was still confirmed, which a lease lost by the
     * holder's clock never is again, and gave up after one lease although the renewals held the key.
     */
    @Test
    void aHolderWhoseLeaseRanOutByItsClockButWhoseRenewalsGetThroughAgainIsStillSettled() throws Exception {
        FailingCompletions store = new FailingCompletions();
        IdempotencyCoordinator coordinator = coordinatorOn(store);
        CompletableFuture<IdempotentResult<Charge>> holder = charge(coordinator);
        stage.awaitCallsInsideProvider(1);
        store.renewalRepliesLost.set(true);
        for (int half = 0; half < 2; half++) {
            ticker.advance(LEASE.dividedBy(2));
            store.failed.drainPermits();
            awaitRenewalsAfterNow(store);
        }
        store.renewalRepliesLost.set(false);
        store.renewed.drainPermits();
        assertThat(store.renewed.tryAcquire(1, 30, TimeUnit.SECONDS)).as("a renewal that got through").isTrue();
        stage.open(1);
        IdempotentResult<Charge> first = holder.get(30, TimeUnit.SECONDS);
        assertThat(first.value().id()).isEqualTo("ch_1");
        assertThat(first.outcome()).as("its lease ran out by its own clock").isEqualTo(Outcome.LEASE_LOST);

        settleOutlastsALeaseAndTheRetryReplays(store, coordinator);
    }

    /** Waits for a renewal that started after now, and landed, though its reply was lost. */
    private static void awaitRenewalsAfterNow(FailingCompletions store) throws InterruptedException {
        Semaphore attempts = store.renewAttempts;
        attempts.drainPermits();
        assertThat(attempts.tryAcquire(2, 30, TimeUnit.SECONDS)).as("renewals").isTrue();
    }

    private void settleOutlastsALeaseAndTheRetryReplays(FailingCompletions store, IdempotencyCoordinator coordinator)
            throws Exception {
        // Three half-leases by the coordinator's clock, each confirmed by a renewal and seen by a failed
        // settle: one and a half leases after the failed complete, the renewals never letting the lease end.
        for (int i = 0; i < 3; i++) {
            ticker.advance(LEASE.dividedBy(2));
            store.renewed.drainPermits();
            assertThat(store.renewed.tryAcquire(1, 30, TimeUnit.SECONDS)).as("a renewal after step " + i).isTrue();
            store.failed.drainPermits();
            assertThat(store.failed.tryAcquire(1, 30, TimeUnit.SECONDS)).as("a settle tried after step " + i).isTrue();
        }
        store.failing.set(false);
        assertThat(store.completed.tryAcquire(1, 30, TimeUnit.SECONDS)).as("the settle landed").isTrue();

        ticker.advance(LEASE.multipliedBy(2)); // a reservation left pending would have run out by now
        CompletableFuture<IdempotentResult<Charge>> retry = charge(coordinator);
        IdempotentResult<Charge> second = retry.get(30, TimeUnit.SECONDS);
        assertThat(second.outcome()).isEqualTo(Outcome.REPLAYED);
        assertThat(second.value().id()).isEqualTo("ch_1");
        assertThat(stage.provider.chargeIds()).containsExactly("ch_1");
    }
}
