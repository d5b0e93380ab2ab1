package dev.idemlab.lab.policy;

import dev.idemlab.idempotency.Fingerprint;
import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotencyKeyReuseException;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.ProviderObserver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The lab's result cache shows the post's bug, and only that bug: its answers agree, its ledger does not. */
class ResultCacheCoordinatorTest {

    private static final ResultCodec<Charge> CHARGE = ResultCodec.json(Charge.class);

    private final CountDownLatch[] gates = {new CountDownLatch(1), new CountDownLatch(1), new CountDownLatch(1)};
    private final Semaphore callsInside = new Semaphore(0);
    private final FakePaymentProvider provider = FakePaymentProvider.builder()
            .latency(call -> gates[Math.min(call, gates.length) - 1].await(30, TimeUnit.SECONDS))
            .observer(new ProviderObserver() {
                @Override
                public void callStarted(int callNumber, String orderId, long amount) {
                    callsInside.release();
                }
            })
            .build();
    private final IdempotencyCoordinator cache =
            new ResultCacheCoordinator(new InMemoryIdempotencyStore(), IdempotencyConfig.ofDefaults());
    private final ExecutorService callers = Executors.newCachedThreadPool();

    @AfterEach
    void stopCallers() {
        for (CountDownLatch gate : gates) {
            gate.countDown();
        }
        callers.shutdownNow();
    }

    private CompletableFuture<Charge> charge(long amount) {
        IdempotentCall call = IdempotentCall.of("payment.charge", "k1",
                Fingerprint.ofFields(Map.of("order_id", "order-42", "amount", amount)));
        return CompletableFuture.supplyAsync(() -> cache.execute(call, CHARGE,
                () -> provider.charge("order-42", amount, "k1")), callers);
    }

    private void awaitInsideProvider() throws InterruptedException {
        assertThat(callsInside.tryAcquire(30, TimeUnit.SECONDS)).as("a call entered the provider").isTrue();
    }

    @Test
    void aRetryWhileTheFirstCallRunsGetsTheSameAnswerAndChargesTwice() throws Exception {
        CompletableFuture<Charge> a = charge(10);
        awaitInsideProvider();
        CompletableFuture<Charge> b = charge(10);
        awaitInsideProvider(); // B found nothing in the cache and is charging too
        gates[0].countDown();
        Charge first = a.get(30, TimeUnit.SECONDS);
        gates[1].countDown();
        Charge second = b.get(30, TimeUnit.SECONDS);

        assertThat(List.of(first.id(), second.id())).containsExactly("ch_1", "ch_1");
        assertThat(provider.chargeIds()).containsExactly("ch_1", "ch_2");
        assertThat(cache.stats().count(Outcome.EXECUTED)).isEqualTo(2);
    }

    @Test
    void aRetryAfterTheFirstCallFinishedReplays() throws Exception {
        gates[0].countDown();
        Charge first = charge(10).get(30, TimeUnit.SECONDS);
        Charge retry = charge(10).get(30, TimeUnit.SECONDS);
        assertThat(retry).isEqualTo(first);
        assertThat(provider.chargeIds()).containsExactly("ch_1");
        assertThat(cache.stats().count(Outcome.REPLAYED)).isEqualTo(1);
    }

    @Test
    void anotherAmountThatLosesThePutRaceIsRefusedNotHandedTheFirstAmountsCharge() throws Exception {
        CompletableFuture<Charge> ten = charge(10);
        awaitInsideProvider();
        CompletableFuture<Charge> five = charge(5);
        awaitInsideProvider();
        gates[0].countDown();
        assertThat(ten.get(30, TimeUnit.SECONDS).amount()).isEqualTo(10);
        gates[1].countDown();
        assertThatThrownBy(() -> five.join()).hasCauseInstanceOf(IdempotencyKeyReuseException.class);
        assertThat(cache.stats().count(Outcome.KEY_REUSE)).isEqualTo(1);
    }
}
