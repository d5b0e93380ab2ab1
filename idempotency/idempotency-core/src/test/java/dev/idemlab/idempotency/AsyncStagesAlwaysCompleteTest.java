package dev.idemlab.idempotency;

import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idemlab.provider.Charge;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.idemlab.idempotency.RaceStage.CHARGE;
import static dev.idemlab.idempotency.RaceStage.chargeCall;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every stage {@code callAsync} returns completes, whatever fails inside the machinery that drives
 * it: an executor that refuses the first step or a later resumption, a store that throws where no
 * store error was expected. Each test stages the race with latches on the real memory store.
 */
class AsyncStagesAlwaysCompleteTest {

    private final RaceStage stage = new RaceStage();
    private final FakeTicker ticker = new FakeTicker();
    private final ExecutorService callers = Executors.newCachedThreadPool();
    private final OutageStore store = new OutageStore(stage.observe(new InMemoryIdempotencyStore(ticker)));
    private final AtomicInteger waiterActions = new AtomicInteger();

    @AfterEach
    void stop() {
        stage.openAll(4);
        callers.shutdownNow();
    }

    private IdempotencyCoordinator coordinator(IdempotencyStore over) {
        return IdempotencyCoordinator.builder(over).ticker(ticker).build();
    }

    private CompletableFuture<Charge> holder(IdempotencyCoordinator coordinator) throws InterruptedException {
        CompletableFuture<Charge> holder = stage.execute(coordinator, callers);
        stage.awaitCallsInsideProvider(1);
        return holder;
    }

    private CompletableFuture<IdempotentResult<Charge>> waiter(IdempotencyCoordinator coordinator, Executor executor) {
        return coordinator.callAsync(chargeCall("k1", 10), CHARGE, context -> {
            waiterActions.incrementAndGet();
            return stage.provider.charge("order-42", 10, "k1");
        }, executor).toCompletableFuture();
    }

    @Test
    void aShutDownExecutorCompletesTheStageExceptionallyAndNothingIsReserved() {
        ExecutorService shutDown = Executors.newSingleThreadExecutor();
        shutDown.shutdown();
        CompletableFuture<IdempotentResult<Charge>> refused = waiter(coordinator(store), shutDown);

        assertThat(refused).failsWithin(30, TimeUnit.SECONDS)
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(RejectedExecutionException.class);
        assertThat(waiterActions).hasValue(0);
        assertThat(store.lookup(chargeCall("k1", 10).namespace())).isEmpty();
    }

    @Test
    void anExecutorThatRejectsTheWaitersResumptionCompletesItsStageAndLetsGoOfItsSubscription() throws Exception {
        IdempotencyCoordinator coordinator = coordinator(store);
        CompletableFuture<Charge> holder = holder(coordinator);
        AtomicInteger accepted = new AtomicInteger();
        Executor saturatedAfterTheFirstStep = step -> {
            if (accepted.getAndIncrement() > 0) {
                throw new RejectedExecutionException("queue full");
            }
            callers.execute(step);
        };
        CompletableFuture<IdempotentResult<Charge>> waiter = waiter(coordinator, saturatedAfterTheFirstStep);
        stage.awaitCallersFindingKeyHeld(1);
        store.awaitAnsweredLookups(1); // subscribed and re-read: it sleeps until the completion resumes it
        stage.open(1);

        assertThat(holder.get(30, TimeUnit.SECONDS).id()).isEqualTo("ch_1");
        assertThat(waiter).failsWithin(30, TimeUnit.SECONDS)
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(RejectedExecutionException.class);
        assertThat(store.openSubscriptions).hasValue(0);
        assertThat(waiterActions).hasValue(0);
        assertThat(stage.provider.chargeIds()).containsExactly("ch_1");
    }

    @Test
    void aStoreThatThrowsWhereNoStorageErrorWasExpectedCompletesTheStage() throws Exception {
        IdempotencyStore refusingSubscriptions = new ForwardingIdempotencyStore(store) {
            @Override
            public Subscription subscribe(String namespace, Listener listener) {
                throw new IllegalStateException("listener registry full");
            }
        };
        IdempotencyCoordinator coordinator = coordinator(refusingSubscriptions);
        CompletableFuture<Charge> holder = holder(coordinator);
        CompletableFuture<IdempotentResult<Charge>> waiter = waiter(coordinator, callers);

        assertThat(waiter).failsWithin(30, TimeUnit.SECONDS)
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(IllegalStateException.class);
        stage.open(1);
        assertThat(holder.get(30, TimeUnit.SECONDS).id()).isEqualTo("ch_1");
        assertThat(waiterActions).hasValue(0);
    }
}
