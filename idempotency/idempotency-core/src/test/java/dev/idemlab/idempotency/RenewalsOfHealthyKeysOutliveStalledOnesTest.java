package dev.idemlab.idempotency;

import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idemlab.provider.Charge;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.idemlab.idempotency.RaceStage.CHARGE;
import static dev.idemlab.idempotency.RaceStage.chargeCall;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Renewals that stall on one part of the store (a paused shard: each waits out its command timeout)
 * once ran on the shared timer's two threads: a couple of them held the timer, the healthy key's
 * renewals stopped, its lease ran out in the store, and a retry on that key ran the action again (two
 * charges). Here the stalled renewals block until the test lets them time out, the heartbeat beats on
 * the real timer (every 50 ms), and both the store's and the holders' clocks are a fake ticker that
 * only the test moves.
 */
class RenewalsOfHealthyKeysOutliveStalledOnesTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration BEAT = Duration.ofMillis(50);
    /** More stalled holders than the timer has threads. */
    private static final int STALLED_HOLDERS = 6;

    private final RaceStage stage = new RaceStage();
    private final FakeTicker ticker = new FakeTicker();
    private final ExecutorService callers = Executors.newCachedThreadPool();
    private final CountDownLatch stallEnds = new CountDownLatch(1);
    private final CountDownLatch stalledActionsEnd = new CountDownLatch(1);

    @AfterEach
    void stop() {
        stallEnds.countDown();
        stalledActionsEnd.countDown();
        stage.openAll(4);
        callers.shutdownNow();
    }

    /** Renewals of the {@code stalled-*} keys block until the test ends the stall, then time out. */
    private final class HalfStalledStore extends ForwardingIdempotencyStore {
        final Semaphore stalledRenewalsStarted = new Semaphore(0);
        final AtomicInteger stalledRenewals = new AtomicInteger();
        final Semaphore healthyRenewals = new Semaphore(0);

        HalfStalledStore() {
            super(new InMemoryIdempotencyStore(ticker));
        }

        @Override
        public boolean renew(String namespace, String token, Duration lease) {
            if (namespace.contains("stalled-")) {
                stalledRenewals.incrementAndGet();
                stalledRenewalsStarted.release();
                awaitQuietly(stallEnds);
                throw new IdempotencyStoreException("half-stalled", namespace,
                        IdempotencyStoreException.Failure.TIMEOUT, "renew timed out on a paused shard", null);
            }
            boolean held = super.renew(namespace, token, lease);
            healthyRenewals.release();
            return held;
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aHolderOnAHealthyKeyKeepsItsLeaseWhileRenewalsElsewhereStall() throws Exception {
        HalfStalledStore store = new HalfStalledStore();
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(store).ticker(ticker)
                .config(IdempotencyConfig.custom().lease(LEASE).heartbeatInterval(BEAT)
                        .policy(InFlightPolicy.RAISE).build())
                .build();
        CompletableFuture<IdempotentResult<Charge>> healthy = CompletableFuture.supplyAsync(() -> coordinator.call(
                chargeCall("healthy", 10), CHARGE, () -> stage.provider.charge("order-42", 10, "healthy")), callers);
        stage.awaitCallsInsideProvider(1);
        List<CompletableFuture<IdempotentResult<String>>> stalled = new ArrayList<>();
        for (int i = 0; i < STALLED_HOLDERS; i++) {
            IdempotentCall call = chargeCall("stalled-" + i, 10);
            stalled.add(CompletableFuture.supplyAsync(() -> coordinator.call(call, ResultCodec.json(String.class),
                    () -> {
                        awaitQuietly(stalledActionsEnd);
                        return "s";
                    }), callers));
        }
        assertThat(store.stalledRenewalsStarted.tryAcquire(STALLED_HOLDERS, 30, TimeUnit.SECONDS))
                .as("every stalled holder has a renewal in flight at once").isTrue();

        store.healthyRenewals.drainPermits();
        ticker.advance(LEASE.minusSeconds(1));
        // The second renewal from now started after the advance, so it renewed the lease from there.
        assertThat(store.healthyRenewals.tryAcquire(2, 30, TimeUnit.SECONDS))
                .as("the healthy key's renewals go on while the stalled ones block").isTrue();
        ticker.advance(Duration.ofSeconds(2)); // the healthy key's first lease has run out by now

        assertThatThrownBy(() -> coordinator.call(chargeCall("healthy", 10), CHARGE,
                () -> stage.provider.charge("order-42", 10, "healthy")))
                .as("a retry on the healthy key finds its holder").isInstanceOf(IdempotencyInProgressException.class);
        assertThat(store.stalledRenewals).as("one renewal in flight per holder: beats that come while it blocks wait for it")
                .hasValue(STALLED_HOLDERS);
        stage.open(1);
        assertThat(healthy.get(30, TimeUnit.SECONDS).outcome()).isEqualTo(Outcome.EXECUTED);
        assertThat(stage.provider.chargeIds()).containsExactly("ch_1");

        stallEnds.countDown();
        stalledActionsEnd.countDown();
        for (CompletableFuture<IdempotentResult<String>> holder : stalled) {
            // Their leases, confirmed by the reserve only, ran out by the holders' clock while the renewals stalled.
            assertThat(holder.get(30, TimeUnit.SECONDS).outcome()).isEqualTo(Outcome.LEASE_LOST);
        }
    }
}
