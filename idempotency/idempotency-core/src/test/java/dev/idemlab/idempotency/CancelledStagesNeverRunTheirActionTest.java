package dev.idemlab.idempotency;

import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idemlab.provider.Charge;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static dev.idemlab.idempotency.RaceStage.CHARGE;
import static dev.idemlab.idempotency.RaceStage.chargeCall;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A stage of {@code callAsync} that its caller cancelled never runs its action afterwards, and leaves
 * the key free: cancelled before its reserve ran, while its reserve landed, and while it waited for
 * another holder. The verdict is a counter of the cancelled caller's action, the record under the
 * key, and the provider's ledger.
 */
class CancelledStagesNeverRunTheirActionTest {

    private static final String NAMESPACE = chargeCall("k1", 10).namespace();

    private final RaceStage stage = new RaceStage();
    private final FakeTicker ticker = new FakeTicker();
    private final ExecutorService callers = Executors.newCachedThreadPool();
    /** One thread, blocked by the test until it lets the call's first step run. */
    private final ExecutorService gated = Executors.newSingleThreadExecutor();
    private final CountDownLatch gateOpen = new CountDownLatch(1);
    private final AtomicInteger cancelledActions = new AtomicInteger();

    @AfterEach
    void stop() {
        gateOpen.countDown();
        stage.openAll(4);
        callers.shutdownNow();
        gated.shutdownNow();
    }

    private IdempotencyCoordinator coordinator(IdempotencyStore store) {
        return IdempotencyCoordinator.builder(store).ticker(ticker).build();
    }

    private CompletableFuture<IdempotentResult<Charge>> counted(IdempotencyCoordinator coordinator,
                                                                java.util.concurrent.Executor executor) {
        return coordinator.callAsync(chargeCall("k1", 10), CHARGE, context -> {
            cancelledActions.incrementAndGet();
            return stage.provider.charge("order-42", 10, "k1");
        }, executor).toCompletableFuture();
    }

    private void closeTheGate() {
        gated.execute(() -> awaitQuietly(gateOpen));
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits until every step handed to the gated executor so far has run. */
    private void drainTheGate() throws Exception {
        gated.submit(() -> { }).get(30, TimeUnit.SECONDS);
    }

    /** The key is free: a later caller runs its own action. */
    private void assertTheKeyIsFree(IdempotencyCoordinator coordinator) {
        stage.openAll(2);
        IdempotentResult<Charge> later = coordinator.call(chargeCall("k1", 10), CHARGE,
                () -> stage.provider.charge("order-42", 10, "k1"));
        assertThat(later.outcome()).isEqualTo(Outcome.EXECUTED);
    }

    @Test
    void cancelledBeforeItsReserveRanItReservesNothingAndNeverRunsItsAction() throws Exception {
        InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(ticker);
        IdempotencyCoordinator coordinator = coordinator(store);
        closeTheGate();
        CompletableFuture<IdempotentResult<Charge>> cancelled = counted(coordinator, gated);
        assertThat(cancelled.cancel(true)).isTrue();
        gateOpen.countDown();
        drainTheGate();

        assertThat(cancelledActions).hasValue(0);
        assertThat(store.lookup(NAMESPACE)).isEmpty();
        assertTheKeyIsFree(coordinator);
        assertThat(stage.provider.chargeIds()).containsExactly("ch_1");
    }

    @Test
    void cancelledWhileItsReserveLandedItReleasesTheKeyAndNeverRunsItsAction() throws Exception {
        AtomicReference<CompletableFuture<?>> toCancel = new AtomicReference<>();
        InMemoryIdempotencyStore memory = new InMemoryIdempotencyStore(ticker);
        IdempotencyStore cancelling = new ForwardingIdempotencyStore(memory) {
            @Override
            public Reservation reserve(String namespace, String token, String fingerprint, Duration lease) {
                Reservation landed = super.reserve(namespace, token, fingerprint, lease);
                toCancel.get().cancel(true); // the caller gives up while the reply is on its way
                return landed;
            }
        };
        IdempotencyCoordinator coordinator = coordinator(cancelling);
        closeTheGate();
        CompletableFuture<IdempotentResult<Charge>> cancelled = counted(coordinator, gated);
        toCancel.set(cancelled);
        gateOpen.countDown();
        drainTheGate();

        assertThat(cancelled).isCancelled();
        assertThat(cancelledActions).hasValue(0);
        // Released in the background: nobody waits for a cancelled call.
        await().atMost(Duration.ofSeconds(30)).until(() -> memory.lookup(NAMESPACE).isEmpty());
        toCancel.set(new CompletableFuture<>());
        assertTheKeyIsFree(IdempotencyCoordinator.builder(memory).ticker(ticker).build());
        assertThat(stage.provider.chargeIds()).containsExactly("ch_1");
    }

    @Test
    void cancelledWhileWaitingItLetsGoOfItsWaitAndNeverRunsItsActionWhenTheHolderReleases() throws Exception {
        OutageStore store = new OutageStore(stage.observe(new InMemoryIdempotencyStore(ticker)));
        IdempotencyCoordinator coordinator = coordinator(store);
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch holderMayFail = new CountDownLatch(1);
        CompletableFuture<Charge> holder = CompletableFuture.supplyAsync(() -> coordinator.execute(chargeCall("k1", 10),
                CHARGE, () -> {
                    holding.countDown();
                    awaitQuietly(holderMayFail);
                    throw new IllegalStateException("declined before charging");
                }), callers);
        assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<IdempotentResult<Charge>> cancelled = counted(coordinator, callers);
        stage.awaitCallersFindingKeyHeld(1);
        store.awaitAnsweredLookups(1);
        assertThat(store.openSubscriptions).hasValue(1);

        assertThat(cancelled.cancel(true)).isTrue();
        await().atMost(Duration.ofSeconds(30)).until(() -> store.openSubscriptions.get() == 0);
        holderMayFail.countDown(); // the holder releases: an uncancelled waiter would now take the key and charge
        assertThat(holder).failsWithin(30, TimeUnit.SECONDS);

        // Longer than two safety polls: a timer left behind would have resumed the waiter by then.
        await().during(Duration.ofMillis(600)).atMost(Duration.ofSeconds(5)).until(() -> cancelledActions.get() == 0);
        assertThat(store.lookup(NAMESPACE)).isEmpty();
        assertTheKeyIsFree(coordinator);
        assertThat(stage.provider.chargeIds()).containsExactly("ch_1");
    }
}
