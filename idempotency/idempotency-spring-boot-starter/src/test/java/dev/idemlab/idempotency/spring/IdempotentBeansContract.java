package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotencyKeyReuseException;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.health.contributor.Status;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What an {@code @Idempotent} Spring bean does on a real store, the same on every store: one charge
 * per key, read from the ledger; the same answer to every retry; another payload under the same key
 * refused; an identical request in flight waits for the first one's charge.
 */
abstract class IdempotentBeansContract {

    @Autowired
    Payments payments;
    @Autowired
    Ledger ledger;
    @Autowired
    IdempotencyCoordinator coordinator;
    @Autowired
    MeterRegistry meters;
    @Autowired
    IdempotencyStoreHealthIndicator health;

    abstract String expectedStore();

    @Test
    void theBeanIsProxiedAndTheCoordinatorRunsOnTheNamedStore() {
        assertThat(AopUtils.isAopProxy(payments)).isTrue();
        assertThat(coordinator.store().name()).isEqualTo(expectedStore());
    }

    @Test
    void aRetryWithTheSameKeyReplaysTheFirstChargeAndTheLedgerHoldsOne() throws Exception {
        String order = UUID.randomUUID().toString();
        String key = "key-" + order;
        Charge first = payments.charge(key, new ChargeRequest(order, 10), null);
        Charge retry = payments.charge(key, new ChargeRequest(order, 10), null);
        assertThat(retry).isEqualTo(first);
        assertThat(first.downstreamKey()).isNotNull();
        assertThat(ledger.chargesOf(order)).containsExactly(first.id());
    }

    @Test
    void theSameKeyWithAnotherAmountIsRefusedWithoutACharge() throws Exception {
        String order = UUID.randomUUID().toString();
        String key = "key-" + order;
        payments.charge(key, new ChargeRequest(order, 10), null);
        assertThatThrownBy(() -> payments.charge(key, new ChargeRequest(order, 5), null))
                .isInstanceOf(IdempotencyKeyReuseException.class);
        assertThat(ledger.chargesOf(order)).hasSize(1);
    }

    @Test
    void aRetryWhileTheFirstIsInFlightWaitsForItsCharge() throws Exception {
        String order = UUID.randomUUID().toString();
        String key = "key-" + order;
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        payments.holdCharges(inside, release);
        try {
            CompletableFuture<Charge> first = CompletableFuture.supplyAsync(() -> charge(key, order));
            assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<Charge> retry = new CompletableFuture<>();
            Thread retrying = new Thread(() -> retry.complete(charge(key, order)), "retry");
            retrying.start();
            // Parked: on the store's reply, or (most likely) waiting for the holder. Either way one charge.
            await().atMost(Duration.ofSeconds(30)).until(() -> retrying.getState() == Thread.State.WAITING
                    || retrying.getState() == Thread.State.TIMED_WAITING);
            release.countDown();
            assertThat(retry.get(30, TimeUnit.SECONDS)).isEqualTo(first.get(30, TimeUnit.SECONDS));
            assertThat(ledger.chargesOf(order)).containsExactly(first.get().id());
        } finally {
            release.countDown();
            payments.holdCharges(new CountDownLatch(0), new CountDownLatch(0));
        }
    }

    @Test
    void aMethodReturningAStageRunsOnceAndReplays() throws Exception {
        String order = UUID.randomUUID().toString();
        String key = "key-" + order;
        Charge first = payments.chargeLater(key, new ChargeRequest(order, 7)).get(30, TimeUnit.SECONDS);
        Charge retry = payments.chargeLater(key, new ChargeRequest(order, 7)).get(30, TimeUnit.SECONDS);
        assertThat(retry).isEqualTo(first);
        assertThat(ledger.chargesOf(order)).containsExactly(first.id());
    }

    @Test
    void selfInvocationBypassesTheProxyAndIsNotIdempotent() throws Exception {
        String order = UUID.randomUUID().toString();
        String key = "key-" + order;
        payments.chargeThroughThis(key, new ChargeRequest(order, 10));
        payments.chargeThroughThis(key, new ChargeRequest(order, 10));
        assertThat(ledger.chargesOf(order)).hasSize(2);
    }

    @Test
    void theCountersReachTheApplicationsMeterRegistry() throws Exception {
        String order = UUID.randomUUID().toString();
        payments.charge("key-" + order, new ChargeRequest(order, 10), null);
        payments.charge("key-" + order, new ChargeRequest(order, 10), null);
        assertThat(meters.find("idempotency.calls").tag("store", expectedStore()).tag("outcome", "replayed")
                .counter()).isNotNull();
    }

    @Test
    void theHealthIndicatorSeesTheStoreUp() {
        assertThat(health.health().getStatus()).isEqualTo(Status.UP);
        assertThat(health.health().getDetails()).containsEntry("store", expectedStore());
    }

    private Charge charge(String key, String order) {
        try {
            return payments.charge(key, new ChargeRequest(order, 10), null);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
