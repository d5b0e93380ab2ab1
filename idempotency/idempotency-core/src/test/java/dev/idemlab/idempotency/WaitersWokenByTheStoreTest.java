package dev.idemlab.idempotency;

import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idemlab.provider.Charge;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
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

/** Waiters woken by the store's notification, and async waiters that hold no thread while they wait. */
class WaitersWokenByTheStoreTest {

    private final RaceStage stage = new RaceStage();
    private final AtomicInteger lookups = new AtomicInteger();
    /** A permit per lookup, so the test can wait for reads without polling a counter. */
    private final Semaphore lookedUp = new Semaphore(0);
    private final ExecutorService callers = Executors.newCachedThreadPool();

    /** The memory store, which notifies, counting the reads its waiters make. */
    private final class CountingStore extends ForwardingIdempotencyStore {

        CountingStore(InMemoryIdempotencyStore memory) {
            super(stage.observe(memory));
        }

        @Override
        public Optional<IdempotencyRecord> lookup(String namespace) {
            lookups.incrementAndGet();
            lookedUp.release();
            return super.lookup(namespace);
        }
    }

    private final IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(
                    new CountingStore(new InMemoryIdempotencyStore()))
            .config(IdempotencyConfig.custom().waitTimeout(java.time.Duration.ofSeconds(30)).build())
            .build();

    @AfterEach
    void stop() {
        stage.openAll(4);
        callers.shutdownNow();
    }

    private CompletableFuture<Charge> holder() {
        return stage.execute(coordinator, callers);
    }

    @Test
    void aHundredWaitersOnOneKeyAreWokenByTheOneCompletionAndReplayItsCharge() throws Exception {
        CompletableFuture<Charge> holder = holder();
        stage.awaitCallsInsideProvider(1);
        List<CompletableFuture<IdempotentResult<Charge>>> waiters = new ArrayList<>();
        ExecutorService few = Executors.newFixedThreadPool(4); // far fewer threads than waiters
        try {
            for (int i = 0; i < 100; i++) {
                waiters.add(coordinator.callAsync(chargeCall("k1", 10), CHARGE,
                        context -> stage.provider.charge("order-42", 10, "k1"), few).toCompletableFuture());
            }
            stage.awaitCallersFindingKeyHeld(100);
            // Every waiter is parked without a thread: the four threads are free for other work.
            assertThat(CompletableFuture.supplyAsync(() -> "free", few).get(10, TimeUnit.SECONDS)).isEqualTo("free");
            // Each waiter re-reads once after subscribing; let all of them have done so.
            assertThat(lookedUp.tryAcquire(100, 30, TimeUnit.SECONDS)).as("every waiter re-read once").isTrue();
            int readsBeforeCompletion = lookups.get();
            assertThat(readsBeforeCompletion).as("one re-read per subscribed waiter").isEqualTo(100);
            stage.open(1);
            assertThat(holder.get(30, TimeUnit.SECONDS).id()).isEqualTo("ch_1");
            for (CompletableFuture<IdempotentResult<Charge>> waiter : waiters) {
                IdempotentResult<Charge> answer = waiter.get(30, TimeUnit.SECONDS);
                assertThat(answer.value().id()).isEqualTo("ch_1");
                assertThat(answer.outcome()).isEqualTo(Outcome.WAITED);
            }
            assertThat(stage.provider.chargeIds()).containsExactly("ch_1");
            // The completion told every waiter the record it left: nobody read the store again after it.
            assertThat(lookups.get() - readsBeforeCompletion).isZero();
        } finally {
            few.shutdownNow();
        }
    }

    @Test
    void aBlockingWaiterIsWokenByTheCompletionNotByItsPollAndReplays() throws Exception {
        CompletableFuture<Charge> holder = holder();
        stage.awaitCallsInsideProvider(1);
        CompletableFuture<IdempotentResult<Charge>> waiter = CompletableFuture.supplyAsync(() -> coordinator.call(
                chargeCall("k1", 10), CHARGE, () -> stage.provider.charge("order-42", 10, "k1")), callers);
        stage.awaitCallersFindingKeyHeld(1);
        stage.open(1);
        assertThat(holder.get(30, TimeUnit.SECONDS).id()).isEqualTo("ch_1");
        assertThat(waiter.get(30, TimeUnit.SECONDS).value().id()).isEqualTo("ch_1");
        assertThat(waiter.get().outcome()).isEqualTo(Outcome.WAITED);
        assertThat(stage.provider.chargeIds()).containsExactly("ch_1");
    }
}
