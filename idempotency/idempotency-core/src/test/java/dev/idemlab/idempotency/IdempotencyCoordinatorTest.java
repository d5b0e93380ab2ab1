package dev.idemlab.idempotency;

import dev.idemlab.idempotency.spi.IdempotencyRecord.Completed;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.FakePaymentProvider;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.idemlab.idempotency.RaceStage.CHARGE;
import static dev.idemlab.idempotency.RaceStage.chargeCall;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class IdempotencyCoordinatorTest {

    private final FakeTicker ticker = new FakeTicker();
    private final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(ticker);
    private final FakePaymentProvider provider = FakePaymentProvider.builder().latency(Duration.ZERO).build();

    private IdempotencyCoordinator coordinator(IdempotencyConfig config) {
        return IdempotencyCoordinator.builder(store).config(config).ticker(ticker).build();
    }

    /** Runs a call that may throw a checked exception on another thread. */
    private static <T> CompletableFuture<T> async(java.util.concurrent.Callable<T> call) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return call.call();
            } catch (Exception e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        });
    }

    private IdempotencyCoordinator coordinator() {
        return coordinator(IdempotencyConfig.ofDefaults());
    }

    private Charge charge(IdempotencyCoordinator coordinator, String key, long amount) {
        return coordinator.execute(chargeCall(key, amount), CHARGE, () -> provider.charge("order-42", amount, key));
    }

    @Test
    void aCompletedKeyReplaysTheStoredResultWithoutCharging() {
        IdempotencyCoordinator coordinator = coordinator();
        Charge first = charge(coordinator, "k1", 10);
        Charge replayed = charge(coordinator, "k1", 10);
        assertThat(replayed).isEqualTo(first);
        assertThat(provider.chargeIds()).containsExactly("ch_1");
        assertThat(coordinator.stats().count(Outcome.REPLAYED)).isEqualTo(1);
    }

    @Test
    void aCompletedKeyReusedWithAnotherAmountIsRefusedWithBothFingerprints() {
        IdempotencyCoordinator coordinator = coordinator();
        charge(coordinator, "k1", 10);
        assertThatThrownBy(() -> charge(coordinator, "k1", 5))
                .isInstanceOfSatisfying(IdempotencyKeyReuseException.class, e -> {
                    assertThat(e.httpStatus()).isEqualTo(422);
                    assertThat(e.storedFingerprint()).isEqualTo(chargeCall("k1", 10).fingerprint().hex());
                    assertThat(e.requestFingerprint()).isEqualTo(chargeCall("k1", 5).fingerprint().hex());
                    assertThat(e.inFlight()).isFalse();
                    assertThat(e.key()).isEqualTo("k1");
                });
        assertThat(provider.chargeIds()).containsExactly("ch_1");
    }

    @Test
    void aPendingKeyReusedWithAnotherAmountIsRefusedAtOnceEvenUnderWait() throws Exception {
        IdempotencyCoordinator coordinator = coordinator();
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        CompletableFuture<Charge> holder = async(() ->
                coordinator.execute(chargeCall("k1", 10), CHARGE, () -> {
                    inside.countDown();
                    finish.await();
                    return provider.charge("order-42", 10, "k1");
                }));
        assertThat(inside.await(30, TimeUnit.SECONDS)).isTrue();
        assertThatThrownBy(() -> charge(coordinator, "k1", 5))
                .isInstanceOfSatisfying(IdempotencyKeyReuseException.class, e -> assertThat(e.inFlight()).isTrue());
        finish.countDown();
        assertThat(holder.get(30, TimeUnit.SECONDS).id()).isEqualTo("ch_1");
        assertThat(provider.chargeIds()).containsExactly("ch_1");
    }

    @Test
    void oneKeyUnderTwoOperationsRunsBoth() {
        IdempotencyCoordinator coordinator = coordinator();
        Fingerprint fp = Fingerprint.ofFields(java.util.Map.of("order_id", "o1"));
        String created = coordinator.execute(IdempotentCall.of("order.create", "k1", fp), ResultCodec.json(String.class),
                () -> "created");
        String cancelled = coordinator.execute(IdempotentCall.of("order.cancel", "k1", fp), ResultCodec.json(String.class),
                () -> "cancelled");
        assertThat(List.of(created, cancelled)).containsExactly("created", "cancelled");
    }

    @Test
    void aFailingActionIsRethrownUnchangedAndLeavesNothingBehind() {
        IdempotencyCoordinator coordinator = coordinator();
        IOException failure = new IOException("provider said no");
        assertThatThrownBy(() -> coordinator.execute(chargeCall("k1", 10), CHARGE, () -> {
            throw failure;
        })).isSameAs(failure);
        assertThat(store.lookup(chargeCall("k1", 10).namespace())).isEmpty();
        assertThat(charge(coordinator, "k1", 10).id()).isEqualTo("ch_1");
        assertThat(coordinator.stats().count(Outcome.ACTION_FAILED)).isEqualTo(1);
    }

    @Test
    void aHolderWhoseLeaseRanOutCannotCompleteOverTheNewOwner() throws Exception {
        IdempotencyCoordinator coordinator = coordinator(IdempotencyConfig.custom().lease(Duration.ofSeconds(5)).build());
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        CompletableFuture<String> slowHolder = async(() ->
                coordinator.execute(chargeCall("k1", 10), ResultCodec.json(String.class), () -> {
                    inside.countDown();
                    finish.await();
                    return "stale result";
                }));
        assertThat(inside.await(30, TimeUnit.SECONDS)).isTrue();
        ticker.advance(Duration.ofSeconds(6));
        String takeover = coordinator.execute(chargeCall("k1", 10), ResultCodec.json(String.class), () -> "new owner");
        finish.countDown();

        assertThat(slowHolder.get(30, TimeUnit.SECONDS)).isEqualTo("stale result");
        assertThat(takeover).isEqualTo("new owner");
        Completed record = (Completed) store.lookup(chargeCall("k1", 10).namespace()).orElseThrow();
        assertThat(record.result().json()).isEqualTo("\"new owner\"");
        assertThat(coordinator.stats().stale()).isEqualTo(1);
    }

    @Test
    void aWaitThatRunsOutAnswersInProgress() throws Exception {
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(store)
                .config(IdempotencyConfig.custom().waitTimeout(Duration.ofMillis(50)).build())
                .build(); // system ticker: the deadline must pass on its own
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        CompletableFuture<Charge> holder = async(() ->
                coordinator.execute(chargeCall("k1", 10), CHARGE, () -> {
                    inside.countDown();
                    finish.await();
                    return provider.charge("order-42", 10, "k1");
                }));
        assertThat(inside.await(30, TimeUnit.SECONDS)).isTrue();
        assertThatThrownBy(() -> charge(coordinator, "k1", 10)).isInstanceOf(IdempotencyInProgressException.class);
        finish.countDown();
        holder.get(30, TimeUnit.SECONDS);
        assertThat(provider.chargeIds()).containsExactly("ch_1");
        assertThat(coordinator.stats().count(Outcome.IN_PROGRESS)).isEqualTo(1);
    }

    @Test
    void underRaiseTheSecondCallerGets409WithTheExpectedDurationLeftAsItsRetryHintAndIsCounted() throws Exception {
        IdempotencyCoordinator coordinator = coordinator(IdempotencyConfig.custom().policy(InFlightPolicy.RAISE)
                .lease(Duration.ofSeconds(20)).expectedDuration(Duration.ofSeconds(8)).build());
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        CompletableFuture<Charge> holder = async(() ->
                coordinator.execute(chargeCall("k1", 10), CHARGE, () -> {
                    inside.countDown();
                    finish.await();
                    return provider.charge("order-42", 10, "k1");
                }));
        assertThat(inside.await(30, TimeUnit.SECONDS)).isTrue();
        ticker.advance(Duration.ofSeconds(5));
        assertThatThrownBy(() -> charge(coordinator, "k1", 10))
                .isInstanceOfSatisfying(IdempotencyInProgressException.class, e -> {
                    assertThat(e.httpStatus()).isEqualTo(409);
                    // the store's ticker moved 5 s of a 20 s lease: the holder is 5 s into the 8 s expected
                    assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(3));
                });
        assertThat(coordinator.stats().count(Outcome.IN_PROGRESS)).isEqualTo(1);
        assertThat(coordinator.stats().count(Outcome.WAITED)).isZero();
        finish.countDown();
        holder.get(30, TimeUnit.SECONDS);
        assertThat(provider.chargeIds()).containsExactly("ch_1");
    }

    @Test
    void aResultTooLargeToStoreIsReturnedOnceAndNeverRerun() {
        IdempotencyCoordinator coordinator = coordinator(IdempotencyConfig.custom().maxResultBytes(100).build());
        AtomicInteger runs = new AtomicInteger();
        String large = "x".repeat(200);
        IdempotentCall call = chargeCall("k1", 10);
        assertThat(coordinator.execute(call, ResultCodec.json(String.class), () -> {
            runs.incrementAndGet();
            return large;
        })).isEqualTo(large);
        assertThatThrownBy(() -> coordinator.execute(call, ResultCodec.json(String.class), () -> {
            runs.incrementAndGet();
            return large;
        })).isInstanceOf(IdempotentReplayUnavailableException.class).hasMessageContaining("over the limit of 100");
        assertThat(runs).hasValue(1);
        assertThat(coordinator.stats().resultsNotStored()).isEqualTo(1);
    }

    @Test
    void aResultThatCannotBeEncodedIsReturnedOnceAndNeverRerun() {
        IdempotencyCoordinator coordinator = coordinator();
        ResultCodec<Object> unencodable = new ResultCodec<>() {
            @Override
            public String encode(Object result) {
                throw new IllegalStateException("no JSON form");
            }

            @Override
            public Object decode(String json) {
                return json;
            }
        };
        AtomicInteger runs = new AtomicInteger();
        Object first = coordinator.execute(chargeCall("k1", 10), unencodable, () -> runs.incrementAndGet());
        assertThat(first).isEqualTo(1);
        assertThatThrownBy(() -> coordinator.execute(chargeCall("k1", 10), unencodable, () -> runs.incrementAndGet()))
                .isInstanceOf(IdempotentReplayUnavailableException.class).hasMessageContaining("no JSON form");
        assertThat(runs).hasValue(1);
    }

    @Test
    void aNullKeyBypassesIdempotency() {
        IdempotencyCoordinator coordinator = coordinator();
        IdempotentResult<Charge> first = coordinator.call(chargeCall(null, 10), CHARGE,
                () -> provider.charge("order-42", 10, null));
        IdempotentResult<Charge> second = coordinator.call(chargeCall(null, 10), CHARGE,
                () -> provider.charge("order-42", 10, null));
        assertThat(List.of(first.outcome(), second.outcome())).containsOnly(Outcome.BYPASSED);
        assertThat(provider.chargeIds()).containsExactly("ch_1", "ch_2");
        assertThat(coordinator.stats().count(Outcome.BYPASSED)).isEqualTo(2);
    }

    @Test
    void anUnreachableStoreFailsOpenByDefaultAndCountsTheError() {
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(new UnreachableStore()).build();
        IdempotentResult<Charge> result = coordinator.call(chargeCall("k1", 10), CHARGE,
                () -> provider.charge("order-42", 10, "k1"));
        assertThat(result.value().id()).isEqualTo("ch_1");
        assertThat(result.outcome()).isEqualTo(Outcome.FAILED_OPEN);
        assertThat(coordinator.stats().storageErrors()).containsEntry(StorePhase.RESERVE, 1L);
        assertThat(provider.chargeIds()).containsExactly("ch_1");
    }

    @Test
    void anUnreachableStoreFailsClosedWithoutRunningTheAction() {
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(new UnreachableStore())
                .config(IdempotencyConfig.custom().storeFailureMode(StoreFailureMode.FAIL_CLOSED).build())
                .build();
        assertThatThrownBy(() -> charge(coordinator, "k1", 10))
                .isInstanceOfSatisfying(IdempotencyStoreUnavailableException.class, e -> {
                    assertThat(e.httpStatus()).isEqualTo(503);
                    assertThat(e.phase()).isEqualTo(StorePhase.RESERVE);
                    assertThat(e.store()).isEqualTo("unreachable");
                });
        assertThat(provider.chargeIds()).isEmpty();
    }

    @Test
    void countersArePublishedToMicrometerWithoutTheKey() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(store).ticker(ticker)
                .meterRegistry(registry).build();
        charge(coordinator, "secret-key", 10);
        charge(coordinator, "secret-key", 10);
        assertThat(registry.get("idempotency.calls").tag("outcome", "executed").counter().count()).isEqualTo(1);
        assertThat(registry.get("idempotency.calls").tag("outcome", "replayed").counter().count()).isEqualTo(1);
        assertThat(registry.getMeters()).allSatisfy(meter ->
                assertThat(meter.getId().getTags()).noneMatch(tag -> tag.getValue().contains("secret-key")));
    }

    @Test
    void everyCoordinatorOnARegistryPublishesNotOnlyTheFirst() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        IdempotencyCoordinator first = IdempotencyCoordinator.builder(store).ticker(ticker).meterRegistry(registry).build();
        IdempotencyCoordinator second = IdempotencyCoordinator.builder(store).ticker(ticker).meterRegistry(registry).build();
        charge(first, "k1", 10);
        charge(second, "k2", 10);
        assertThat(registry.get("idempotency.calls").tag("outcome", "executed").counter().count()).isEqualTo(2);
    }
}
