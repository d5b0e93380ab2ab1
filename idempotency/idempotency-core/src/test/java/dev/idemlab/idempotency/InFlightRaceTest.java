package dev.idemlab.idempotency;

import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.ProviderTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static dev.idemlab.idempotency.RaceStage.CHARGE;
import static dev.idemlab.idempotency.RaceStage.chargeCall;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The post's first table, staged with latches: caller A is inside the provider when caller B
 * arrives with the same key and payload. The counts come from the provider's ledger.
 */
class InFlightRaceTest {

    private final RaceStage stage = new RaceStage();
    private final ExecutorService callers = Executors.newCachedThreadPool();

    @AfterEach
    void stopCallers() {
        stage.openAll(64);
        callers.shutdownNow();
    }

    private IdempotencyCoordinator coordinator(InFlightPolicy policy) {
        return IdempotencyCoordinator.builder(stage.observe(new InMemoryIdempotencyStore()))
                .config(IdempotencyConfig.custom().policy(policy).build())
                .build();
    }

    private CompletableFuture<Charge> charge(IdempotencyCoordinator coordinator, String key) {
        return CompletableFuture.supplyAsync(() -> coordinator.execute(chargeCall(key, 10), CHARGE,
                () -> stage.provider.charge("order-42", 10, key)), callers);
    }

    private static Charge await(CompletableFuture<Charge> call) throws Exception {
        return call.get(RaceStage.PATIENCE.toSeconds(), TimeUnit.SECONDS);
    }

    @Test
    void waitPolicyMakesTheRetryWaitAndReplay() throws Exception {
        IdempotencyCoordinator coordinator = coordinator(InFlightPolicy.WAIT);
        CompletableFuture<Charge> a = charge(coordinator, "k1");
        stage.awaitCallsInsideProvider(1);
        CompletableFuture<Charge> b = charge(coordinator, "k1");
        stage.awaitCallersFindingKeyHeld(1);
        stage.open(1);

        assertThat(List.of(await(a).id(), await(b).id())).containsExactly("ch_1", "ch_1");
        assertThat(stage.provider.chargeIds()).containsExactly("ch_1");
        assertThat(coordinator.stats().count(Outcome.WAITED)).isEqualTo(1);
    }

    @Test
    void raisePolicyRefusesTheRetryWithAnInProgressError() throws Exception {
        IdempotencyCoordinator coordinator = coordinator(InFlightPolicy.RAISE);
        CompletableFuture<Charge> a = charge(coordinator, "k1");
        stage.awaitCallsInsideProvider(1);
        CompletableFuture<Charge> b = charge(coordinator, "k1");

        assertThatThrownBy(() -> await(b)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(IdempotencyInProgressException.class)
                .satisfies(e -> {
                    IdempotencyInProgressException inProgress = (IdempotencyInProgressException) e;
                    assertThat(inProgress.httpStatus()).isEqualTo(409);
                    assertThat(inProgress.retryAfter()).isPositive()
                            .isLessThanOrEqualTo(IdempotencyConfig.DEFAULT_LEASE);
                });
        stage.open(1);
        assertThat(await(a).id()).isEqualTo("ch_1");
        assertThat(stage.provider.chargeIds()).containsExactly("ch_1");
    }

    @Test
    void manyConcurrentDuplicatesUnderWaitChargeOnceAndAllGetTheCharge() throws Exception {
        IdempotencyCoordinator coordinator = coordinator(InFlightPolicy.WAIT);
        CompletableFuture<Charge> a = charge(coordinator, "k1");
        stage.awaitCallsInsideProvider(1);
        List<CompletableFuture<Charge>> retries = new ArrayList<>();
        for (int i = 0; i < 15; i++) {
            retries.add(charge(coordinator, "k1"));
        }
        stage.awaitCallersFindingKeyHeld(15);
        stage.open(1);

        assertThat(await(a).id()).isEqualTo("ch_1");
        for (CompletableFuture<Charge> retry : retries) {
            assertThat(await(retry).id()).isEqualTo("ch_1");
        }
        assertThat(stage.provider.chargeIds()).containsExactly("ch_1");
    }

    @Test
    void everyDuplicateArrivingWhileTheHolderIsInsideTheProviderIsTurnedAwayUnderRaise() throws Exception {
        IdempotencyCoordinator coordinator = coordinator(InFlightPolicy.RAISE);
        CompletableFuture<Charge> holder = charge(coordinator, "k1");
        stage.awaitCallsInsideProvider(1);
        List<CompletableFuture<Charge>> duplicates = new ArrayList<>();
        for (int i = 0; i < 15; i++) {
            duplicates.add(charge(coordinator, "k1"));
        }
        for (CompletableFuture<Charge> duplicate : duplicates) {
            // Under WAIT these would block on the holder, which is still inside the provider.
            assertThatThrownBy(() -> await(duplicate)).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(IdempotencyInProgressException.class);
        }
        stage.open(1);
        assertThat(await(holder).id()).isEqualTo("ch_1");
        assertThat(stage.provider.chargeIds()).containsExactly("ch_1");
        assertThat(coordinator.stats().count(Outcome.IN_PROGRESS)).isEqualTo(15);
        assertThat(coordinator.stats().count(Outcome.EXECUTED)).isEqualTo(1);
    }

    @Test
    void aFailedHolderLeavesNothingBehindAndTheWaiterThenRunsTheAction() throws Exception {
        IdempotencyCoordinator coordinator = coordinator(InFlightPolicy.WAIT);
        stage.provider.failNextCalls(1);
        CompletableFuture<Charge> a = charge(coordinator, "k1");
        stage.awaitCallsInsideProvider(1);
        CompletableFuture<Charge> b = charge(coordinator, "k1");
        stage.awaitCallersFindingKeyHeld(1);
        stage.open(1);

        assertThatThrownBy(() -> await(a)).cause().isInstanceOf(ProviderTimeoutException.class);
        stage.awaitCallsInsideProvider(1); // B took the released key and is charging
        stage.open(2);
        assertThat(await(b).id()).isEqualTo("ch_1");
        assertThat(stage.provider.chargeIds()).containsExactly("ch_1");
    }
}
