package dev.idemlab.idempotency;

import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idemlab.provider.Charge;
import org.awaitility.Awaitility;
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
 * Issue 24: a renewal that fails is not a lost lease. The heartbeat runs on the real timer (every
 * 50 ms here); whether the lease last confirmed has run out is read from a fake ticker that only the
 * test moves, so no test depends on how long a beat takes. The real-server versions are in the lab
 * ({@code RenewalSurvivesStoreHiccupsTest}); the heartbeat alone is tested in {@code HeartbeatTest}.
 */
class RenewalSurvivesStoreErrorsTest {

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

    /** A real store whose renewals fail as timed-out store calls while {@code failing} is set. */
    private final class FailingRenewals extends ForwardingIdempotencyStore {
        final AtomicBoolean failing = new AtomicBoolean(true);
        final Semaphore failed = new Semaphore(0);
        final Semaphore renewed = new Semaphore(0);

        FailingRenewals() {
            super(new InMemoryIdempotencyStore(ticker));
        }

        @Override
        public boolean renew(String namespace, String token, Duration lease) {
            if (failing.get()) {
                failed.release();
                throw new IdempotencyStoreException("flaky", namespace, IdempotencyStoreException.Failure.TIMEOUT,
                        "renew timed out", null);
            }
            boolean held = super.renew(namespace, token, lease);
            renewed.release();
            return held;
        }
    }

    private IdempotencyCoordinator coordinator(FailingRenewals store) {
        return IdempotencyCoordinator.builder(store).ticker(ticker)
                .config(IdempotencyConfig.custom().lease(LEASE).heartbeatInterval(BEAT).build()).build();
    }

    private CompletableFuture<IdempotentResult<Charge>> charge(IdempotencyCoordinator coordinator) {
        return stage.call(coordinator, callers);
    }

    @Test
    void renewalsThatFailAreTriedAgainAndTheHolderKeepsItsLease() throws Exception {
        FailingRenewals store = new FailingRenewals();
        IdempotencyCoordinator coordinator = coordinator(store);
        CompletableFuture<IdempotentResult<Charge>> holder = charge(coordinator);
        stage.awaitCallsInsideProvider(1);
        assertThat(store.failed.tryAcquire(2, 30, TimeUnit.SECONDS)).as("two renewals failed").isTrue();
        store.failing.set(false);
        assertThat(store.renewed.tryAcquire(1, 30, TimeUnit.SECONDS)).as("a later renewal got through").isTrue();
        stage.open(1);

        IdempotentResult<Charge> result = holder.get(30, TimeUnit.SECONDS);
        assertThat(result.outcome()).isEqualTo(Outcome.EXECUTED);
        assertThat(stage.provider.chargeIds()).containsExactly("ch_1");
        assertThat(coordinator.stats().storageErrors().get(StorePhase.RENEW)).isGreaterThanOrEqualTo(2);
        assertThat(coordinator.stats().count(Outcome.LEASE_LOST)).isZero();
    }

    @Test
    void aLeaseLastConfirmedLongerAgoThanTheLeaseIsLostWhileTheStoreCannotBeReached() throws Exception {
        FailingRenewals store = new FailingRenewals();
        IdempotencyCoordinator coordinator = coordinator(store);
        CompletableFuture<IdempotentResult<Charge>> holder = charge(coordinator);
        stage.awaitCallsInsideProvider(1);
        assertThat(store.failed.tryAcquire(2, 30, TimeUnit.SECONDS)).isTrue();
        // The store fails a renewal before the heartbeat counts it: wait for the count, not the failure.
        Awaitility.await().atMost(Duration.ofSeconds(30))
                .until(() -> coordinator.stats().storageErrors().get(StorePhase.RENEW) >= 2);
        assertThat(holder).as("failed renewals alone do not end the call").isNotDone();
        ticker.advance(LEASE); // by the holder's own clock, the lease it last confirmed has run out
        stage.open(1);

        IdempotentResult<Charge> result = holder.get(30, TimeUnit.SECONDS);
        assertThat(result.outcome()).isEqualTo(Outcome.LEASE_LOST);
        assertThat(result.value().id()).isEqualTo("ch_1");
        assertThat(stage.provider.chargeIds()).containsExactly("ch_1");
        assertThat(coordinator.stats().storageErrors().get(StorePhase.RENEW)).isGreaterThanOrEqualTo(2);
    }
}
