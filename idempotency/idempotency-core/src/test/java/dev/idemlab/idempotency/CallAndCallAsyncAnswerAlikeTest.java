package dev.idemlab.idempotency;

import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idemlab.provider.Charge;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static dev.idemlab.idempotency.RaceStage.CHARGE;
import static dev.idemlab.idempotency.RaceStage.chargeCall;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code call} and {@code callAsync} give the same answer, and leave the same ledger, in every
 * situation a caller can meet. They share one waiting state machine; this table keeps them from
 * drifting apart again (a {@code callAsync} waiter that met a store outage once re-reserved, failed
 * open and charged twice where {@code call} kept waiting and replayed). Every situation is staged
 * with latches and a fake ticker; the answer is the caller's outcome and charge, or what it threw,
 * and the provider's ledger once every caller is done.
 */
class CallAndCallAsyncAnswerAlikeTest {

    enum Mode { CALL, CALL_ASYNC }

    enum Situation {
        FREE("EXECUTED ch_1 [ch_1]"),
        COMPLETED_BEFORE("REPLAYED ch_1 [ch_1]"),
        COMPLETED_FOR_ANOTHER_REQUEST("IdempotencyKeyReuseException [ch_1]"),
        HELD_UNDER_RAISE("IdempotencyInProgressException [ch_1]"),
        HELD_FOR_ANOTHER_REQUEST("IdempotencyKeyReuseException [ch_1]"),
        HELD_THEN_COMPLETED("WAITED ch_1 [ch_1]"),
        HELD_THEN_RELEASED("EXECUTED ch_1 [ch_1]"),
        HELD_PAST_THE_WAIT_DEADLINE("IdempotencyInProgressException [ch_1]"),
        HELD_THROUGH_A_STORE_OUTAGE_THEN_COMPLETED("WAITED ch_1 [ch_1]"),
        HELD_THROUGH_A_STORE_OUTAGE_PAST_THE_SEEN_LEASE("FAILED_OPEN ch_1 [ch_1, ch_2]"),
        STORE_DOWN_FAILING_OPEN("FAILED_OPEN ch_1 [ch_1]"),
        STORE_DOWN_FAILING_CLOSED("IdempotencyStoreUnavailableException []");

        final String answer;

        Situation(String answer) {
            this.answer = answer;
        }
    }

    private static final Duration SHORT_LEASE = Duration.ofSeconds(5);

    private final RaceStage stage = new RaceStage();
    private final FakeTicker ticker = new FakeTicker();
    private final ExecutorService callers = Executors.newCachedThreadPool();
    private final OutageStore store = new OutageStore(stage.observe(new InMemoryIdempotencyStore(ticker)));
    private final CountDownLatch holderMayFail = new CountDownLatch(1);

    @AfterEach
    void stop() {
        holderMayFail.countDown();
        stage.openAll(4);
        callers.shutdownNow();
    }

    static Stream<Arguments> table() {
        return Arrays.stream(Situation.values())
                .flatMap(situation -> Arrays.stream(Mode.values()).map(mode -> Arguments.of(situation, mode)));
    }

    @ParameterizedTest(name = "{0} by {1}")
    @MethodSource("table")
    void answersAsTheTableSays(Situation situation, Mode mode) throws Exception {
        assertThat(play(situation, mode)).isEqualTo(situation.answer);
    }

    private String play(Situation situation, Mode mode) throws Exception {
        IdempotencyCoordinator coordinator = coordinator(situation);
        return switch (situation) {
            case FREE -> {
                stage.openAll(1);
                yield outcome(caller(mode, coordinator, 10)) + ledgerAfter(null);
            }
            case COMPLETED_BEFORE -> completedBefore(mode, coordinator, 10);
            case COMPLETED_FOR_ANOTHER_REQUEST -> completedBefore(mode, coordinator, 20);
            case HELD_UNDER_RAISE -> heldAndTurnedAway(mode, coordinator, 10);
            case HELD_FOR_ANOTHER_REQUEST -> heldAndTurnedAway(mode, coordinator, 20);
            case HELD_THEN_COMPLETED -> heldThenCompleted(mode, coordinator, false);
            case HELD_THEN_RELEASED -> heldThenReleased(mode, coordinator);
            case HELD_PAST_THE_WAIT_DEADLINE -> heldPastTheWaitDeadline(mode, coordinator);
            case HELD_THROUGH_A_STORE_OUTAGE_THEN_COMPLETED -> heldThenCompleted(mode, coordinator, true);
            case HELD_THROUGH_A_STORE_OUTAGE_PAST_THE_SEEN_LEASE ->
                    heldThroughAnOutagePastTheSeenLease(mode, coordinator);
            case STORE_DOWN_FAILING_OPEN, STORE_DOWN_FAILING_CLOSED -> {
                stage.openAll(1);
                store.down = true;
                yield outcome(caller(mode, coordinator, 10)) + ledgerAfter(null);
            }
        };
    }

    /** A completed the key; then B asks for {@code amount} (10: A's request; 20: another one). */
    private String completedBefore(Mode mode, IdempotencyCoordinator coordinator, long amount) throws Exception {
        stage.openAll(1);
        CompletableFuture<Charge> holder = holder(coordinator);
        holder.get(30, TimeUnit.SECONDS);
        return outcome(caller(mode, coordinator, amount)) + ledgerAfter(holder);
    }

    /** A holds the key; B is answered at once (RAISE, or another request's fingerprint). */
    private String heldAndTurnedAway(Mode mode, IdempotencyCoordinator coordinator, long amount) throws Exception {
        CompletableFuture<Charge> holder = holder(coordinator);
        stage.awaitCallsInsideProvider(1);
        String answer = outcome(caller(mode, coordinator, amount));
        stage.open(1);
        return answer + ledgerAfter(holder);
    }

    /**
     * A holds the key and B waits; with {@code outage}, the store then refuses B's reads (at least two
     * of them) while A completes, so B is told by the notification, not by a read.
     */
    private String heldThenCompleted(Mode mode, IdempotencyCoordinator coordinator, boolean outage) throws Exception {
        CompletableFuture<Charge> holder = holder(coordinator);
        CompletableFuture<IdempotentResult<Charge>> waiter = waiterInItsWait(mode, coordinator);
        if (outage) {
            store.down = true;
            store.awaitFailures(2); // the waiter read, and read again, through the outage
        }
        stage.open(1);
        holder.get(30, TimeUnit.SECONDS);
        store.down = false;
        return outcome(waiter) + ledgerAfter(holder);
    }

    private String heldPastTheWaitDeadline(Mode mode, IdempotencyCoordinator coordinator) throws Exception {
        CompletableFuture<Charge> holder = holder(coordinator);
        CompletableFuture<IdempotentResult<Charge>> waiter = waiterInItsWait(mode, coordinator);
        ticker.advance(Duration.ofSeconds(6)); // past the 5 s wait, well inside the 30 s lease
        String answer = outcome(waiter);
        stage.open(1);
        return answer + ledgerAfter(holder);
    }

    private String heldThroughAnOutagePastTheSeenLease(Mode mode, IdempotencyCoordinator coordinator)
            throws Exception {
        CompletableFuture<Charge> holder = holder(coordinator);
        CompletableFuture<IdempotentResult<Charge>> waiter = waiterInItsWait(mode, coordinator);
        store.down = true;
        store.awaitFailures(2);
        stage.open(2);
        // Past the 5 s lease the waiter saw, short of its 6 s wait: it contends again, its reserve
        // fails, and the store-failure mode (open) runs its action.
        ticker.advance(Duration.ofMillis(5_500));
        String answer = outcome(waiter);
        store.down = false;
        stage.open(1);
        return answer + ledgerAfter(holder);
    }

    private IdempotencyCoordinator coordinator(Situation situation) {
        IdempotencyConfig.Builder config = IdempotencyConfig.custom();
        switch (situation) {
            case HELD_UNDER_RAISE -> config.policy(InFlightPolicy.RAISE);
            case HELD_PAST_THE_WAIT_DEADLINE -> config.waitTimeout(Duration.ofSeconds(5));
            case HELD_THROUGH_A_STORE_OUTAGE_PAST_THE_SEEN_LEASE -> config.lease(SHORT_LEASE);
            case STORE_DOWN_FAILING_CLOSED -> config.storeFailureMode(StoreFailureMode.FAIL_CLOSED);
            default -> { }
        }
        return IdempotencyCoordinator.builder(store).ticker(ticker).config(config.build()).build();
    }

    /** The first caller, A: it holds the key while the provider's first call is gated. */
    private CompletableFuture<Charge> holder(IdempotencyCoordinator coordinator) {
        return stage.execute(coordinator, callers);
    }

    /** The caller under test, B, for {@code amount} (10: the same request as A's; 20: another one). */
    private CompletableFuture<IdempotentResult<Charge>> caller(Mode mode, IdempotencyCoordinator coordinator,
                                                               long amount) {
        IdempotentCall call = chargeCall("k1", amount);
        ContextualAction<Charge, RuntimeException> charge = context -> stage.provider.charge("order-42", amount, "k1");
        return mode == Mode.CALL
                ? CompletableFuture.supplyAsync(() -> coordinator.call(call, CHARGE, charge), callers)
                : coordinator.callAsync(call, CHARGE, charge, callers).toCompletableFuture();
    }

    /** B, once it found A's reservation and read the record in its wait (so its deadline runs). */
    private CompletableFuture<IdempotentResult<Charge>> waiterInItsWait(Mode mode, IdempotencyCoordinator coordinator)
            throws InterruptedException {
        stage.awaitCallsInsideProvider(1);
        CompletableFuture<IdempotentResult<Charge>> waiter = caller(mode, coordinator, 10);
        stage.awaitCallersFindingKeyHeld(1);
        store.awaitAnsweredLookups(1);
        return waiter;
    }

    /** A holds the key, B waits, then A's action fails before charging: A releases, and B runs. */
    private String heldThenReleased(Mode mode, IdempotencyCoordinator coordinator) throws Exception {
        CountDownLatch holding = new CountDownLatch(1);
        CompletableFuture<Charge> holder = CompletableFuture.supplyAsync(() -> coordinator.execute(
                chargeCall("k1", 10), CHARGE, () -> {
                    holding.countDown();
                    awaitQuietly(holderMayFail);
                    throw new IllegalStateException("declined before charging");
                }), callers);
        assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<IdempotentResult<Charge>> waiter = caller(mode, coordinator, 10);
        stage.awaitCallersFindingKeyHeld(1);
        store.awaitAnsweredLookups(1);
        stage.openAll(1);
        holderMayFail.countDown();
        assertThat(holder).failsWithin(30, TimeUnit.SECONDS);
        return outcome(waiter) + ledgerAfter(null);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** B's outcome and charge, or what it threw. */
    private static String outcome(CompletableFuture<IdempotentResult<Charge>> caller) throws Exception {
        try {
            IdempotentResult<Charge> result = caller.get(30, TimeUnit.SECONDS);
            return result.outcome() + " " + result.value().id();
        } catch (ExecutionException e) {
            return e.getCause().getClass().getSimpleName();
        }
    }

    /** The provider's ledger once {@code holder}, if there is one, is done. */
    private String ledgerAfter(CompletableFuture<Charge> holder) throws Exception {
        if (holder != null) {
            holder.get(30, TimeUnit.SECONDS);
        }
        return " " + stage.provider.chargeIds();
    }
}
