package dev.idemlab.idempotency;

import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idemlab.provider.Charge;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static dev.idemlab.idempotency.RaceStage.CHARGE;
import static dev.idemlab.idempotency.RaceStage.chargeCall;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code callAsync} once checked whether its stage was done and then ran the action: a cancel between
 * the two succeeded, and the cancelled stage's action ran anyway (a charge nobody waited for). Now the
 * action is claimed on the stage right before it runs, atomically with any cancel: a cancel that
 * returns {@code true} means the action never runs, and one after the claim returns {@code false} and
 * the stage reports the action's result. Each test puts the cancel at one point of the call, from the
 * call's own thread, so no timing decides which side wins.
 */
class CancelsRacingTheActionNeverRunItOnACancelledStageTest {

    private static final String NAMESPACE = chargeCall("k1", 10).namespace();

    private final RaceStage stage = new RaceStage();
    private final FakeTicker ticker = new FakeTicker();
    private final InMemoryIdempotencyStore memory = new InMemoryIdempotencyStore(ticker);
    private final ExecutorService callers = Executors.newCachedThreadPool();
    private final AtomicReference<CompletableFuture<?>> toCancel = new AtomicReference<>();
    private final AtomicInteger actions = new AtomicInteger();

    @AfterEach
    void stop() {
        stage.openAll(4);
        callers.shutdownNow();
    }

    /**
     * A refused connection whose message cancels the stage the first time it is read: the coordinator
     * reads it as it counts the storage error, which is after it chose to fail open and before it runs
     * the action, where the old check-then-run let a cancel in.
     */
    private final class CancellingWhenCounted extends IdempotencyStoreException {
        private final AtomicReference<Boolean> cancelAnswered;

        CancellingWhenCounted(String namespace, AtomicReference<Boolean> cancelAnswered) {
            super("unreachable", namespace, Failure.UNREACHABLE, "connection refused", null);
            this.cancelAnswered = cancelAnswered;
        }

        @Override
        public String getMessage() {
            if (cancelAnswered.get() == null) {
                cancelAnswered.set(toCancel.get().cancel(true));
            }
            return super.getMessage();
        }
    }

    private CompletableFuture<IdempotentResult<Charge>> charge(IdempotencyCoordinator coordinator) {
        return charge(coordinator, () -> { });
    }

    /** Starts the charge; {@code insideAction} runs as its action starts. */
    private CompletableFuture<IdempotentResult<Charge>> charge(IdempotencyCoordinator coordinator,
                                                               Runnable insideAction) {
        stage.openAll(2);
        // The call's steps wait until the test knows the stage, so that the store and the action can cancel it.
        CompletableFuture<Void> known = new CompletableFuture<>();
        CompletableFuture<IdempotentResult<Charge>> future = coordinator.callAsync(chargeCall("k1", 10), CHARGE,
                context -> {
                    actions.incrementAndGet();
                    insideAction.run();
                    return stage.provider.charge("order-42", 10, "k1");
                }, step -> callers.execute(() -> {
                    known.join();
                    step.run();
                })).toCompletableFuture();
        toCancel.set(future);
        known.complete(null);
        return future;
    }

    @Test
    void aCancelAfterTheCallChoseToFailOpenIsRefusedAndTheStageReportsTheActionThatRan() throws Exception {
        AtomicReference<Boolean> cancelAnswered = new AtomicReference<>();
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(new ForwardingIdempotencyStore(memory) {
            @Override
            public Reservation reserve(String namespace, String token, String fingerprint, Duration lease) {
                throw new CancellingWhenCounted(namespace, cancelAnswered);
            }
        }).ticker(ticker).build();

        IdempotentResult<Charge> result = charge(coordinator).get(30, TimeUnit.SECONDS);

        assertThat(cancelAnswered.get()).as("the cancel came once the action was claimed").isFalse();
        assertThat(result.outcome()).isEqualTo(Outcome.FAILED_OPEN);
        assertThat(actions).hasValue(1);
        assertThat(stage.provider.chargeIds()).containsExactly("ch_1");
    }

    @Test
    void aCancelWhileTheReserveFailsWinsAndTheCallDoesNotFailOpen() throws Exception {
        // A future, not a flag: the stage is cancelled inside cancel(), so the test can wake up before
        // the store's thread has stored what cancel() answered.
        CompletableFuture<Boolean> cancelAnswered = new CompletableFuture<>();
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(new ForwardingIdempotencyStore(memory) {
            @Override
            public Reservation reserve(String namespace, String token, String fingerprint, Duration lease) {
                cancelAnswered.complete(toCancel.get().cancel(true)); // the caller gives up while the store fails
                throw new IdempotencyStoreException("unreachable", namespace,
                        IdempotencyStoreException.Failure.UNREACHABLE, "connection refused", null);
            }
        }).ticker(ticker).build();

        CompletableFuture<IdempotentResult<Charge>> cancelled = charge(coordinator);

        assertThat(cancelled).failsWithin(30, TimeUnit.SECONDS);
        assertThat(cancelAnswered).succeedsWithin(30, TimeUnit.SECONDS).isEqualTo(true);
        assertThat(cancelled).isCancelled();
        // The call's thread counts the error after the cancel woke this one: let it finish first.
        callers.shutdown();
        assertThat(callers.awaitTermination(30, TimeUnit.SECONDS)).as("the call's thread finished").isTrue();
        assertThat(coordinator.stats().storageErrors().get(StorePhase.RESERVE)).isEqualTo(1);
        assertThat(actions).hasValue(0);
        assertThat(stage.provider.chargeIds()).isEmpty();
    }

    @Test
    void aCancelOnceTheHolderRunsItsActionIsRefusedAndTheStageReportsTheStoredResult() throws Exception {
        AtomicReference<Boolean> cancelAnswered = new AtomicReference<>();
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(memory).ticker(ticker).build();

        IdempotentResult<Charge> result = charge(coordinator, () -> cancelAnswered.set(toCancel.get().cancel(true)))
                .get(30, TimeUnit.SECONDS);

        assertThat(cancelAnswered.get()).as("the action had started").isFalse();
        assertThat(result.outcome()).isEqualTo(Outcome.EXECUTED);
        assertThat(memory.lookup(NAMESPACE)).get().isInstanceOf(IdempotencyRecord.Completed.class);
        IdempotentResult<Charge> retry = coordinator.call(chargeCall("k1", 10), CHARGE,
                () -> stage.provider.charge("order-42", 10, "k1"));
        assertThat(retry.outcome()).isEqualTo(Outcome.REPLAYED);
        assertThat(actions).hasValue(1);
        assertThat(stage.provider.chargeIds()).containsExactly("ch_1");
    }
}
