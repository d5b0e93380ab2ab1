package dev.idemlab.provider;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DeduplicationTest {

    private static final long PATIENCE_MS = CallGates.PATIENCE.toMillis();

    @Test
    void a_replayed_key_gets_the_same_charge_and_adds_no_entry() {
        FakePaymentProvider provider = FakePaymentProvider.builder().latency(Duration.ZERO).deduplicateOnKey(true).build();

        ChargeResult first = provider.chargeOrReplay(ChargeRequest.of("order-42", 10, "k1"));
        ChargeResult replay = provider.chargeOrReplay(ChargeRequest.of("order-42", 10, "k1"));

        assertThat(first.replayed()).isFalse();
        assertThat(replay.replayed()).isTrue();
        assertThat(replay.charge()).isEqualTo(first.charge());
        assertThat(provider.chargeIds()).containsExactly("ch_1");
        assertThat(provider.callCount()).isEqualTo(2);
    }

    @Test
    void a_key_reused_with_another_amount_is_refused_and_charges_nothing() {
        FakePaymentProvider provider = FakePaymentProvider.builder().latency(Duration.ZERO).deduplicateOnKey(true).build();
        Charge first = provider.charge("order-42", 10, "k1");

        assertThatThrownBy(() -> provider.charge("order-42", 5, "k1"))
                .isInstanceOfSatisfying(ProviderKeyReuseException.class, e -> {
                    assertThat(e.key()).isEqualTo("k1");
                    assertThat(e.chargedAmount()).isEqualTo(10);
                    assertThat(e.requestedAmount()).isEqualTo(5);
                    assertThat(e.earlierCharge()).isEqualTo(first);
                });
        assertThat(provider.chargeIds()).containsExactly("ch_1");
    }

    @Test
    void a_key_reused_for_another_order_is_refused() {
        FakePaymentProvider provider = FakePaymentProvider.builder().latency(Duration.ZERO).deduplicateOnKey(true).build();
        provider.charge("order-42", 10, "k1");

        assertThatThrownBy(() -> provider.charge("order-43", 10, "k1"))
                .isInstanceOfSatisfying(ProviderKeyReuseException.class,
                        e -> assertThat(e.requestedOrderId()).isEqualTo("order-43"));
        assertThat(provider.chargeIds()).containsExactly("ch_1");
    }

    @Test
    void calls_without_a_key_are_never_deduplicated() {
        FakePaymentProvider provider = FakePaymentProvider.builder().latency(Duration.ZERO).deduplicateOnKey(true).build();

        provider.charge("order-42", 10, null);
        provider.charge("order-42", 10, null);

        assertThat(provider.chargeIds()).containsExactly("ch_1", "ch_2");
    }

    @Test
    void a_key_whose_first_call_timed_out_before_charging_charges_on_retry() {
        FakePaymentProvider provider = FakePaymentProvider.builder().latency(Duration.ZERO).deduplicateOnKey(true).build();
        provider.failNextCalls(1);

        assertThatThrownBy(() -> provider.charge("order-42", 10, "k1")).isInstanceOf(ProviderTimeoutException.class);
        ChargeResult retry = provider.chargeOrReplay(ChargeRequest.of("order-42", 10, "k1"));

        assertThat(retry.replayed()).isFalse();
        assertThat(provider.chargeIds()).containsExactly("ch_1");
    }

    /** The post's in-flight race against a deduplicating provider: B arrives while A is inside. */
    @Test
    void a_second_identical_call_arriving_while_the_first_is_inside_replays_its_charge() throws Exception {
        CallGates stage = new CallGates();
        FakePaymentProvider provider = stage.provider().deduplicateOnKey(true).build();
        ExecutorService callers = Executors.newFixedThreadPool(2);
        try {
            Future<ChargeResult> a = callers.submit(() -> provider.chargeOrReplay(ChargeRequest.of("order-42", 10, "k1")));
            stage.awaitEntered(1);
            Future<ChargeResult> b = callers.submit(() -> provider.chargeOrReplay(ChargeRequest.of("order-42", 10, "k1")));
            stage.awaitEntered(1);

            stage.open(1);
            ChargeResult first = a.get(PATIENCE_MS, TimeUnit.MILLISECONDS);
            stage.open(2);
            ChargeResult second = b.get(PATIENCE_MS, TimeUnit.MILLISECONDS);

            assertThat(first.replayed()).isFalse();
            assertThat(second.replayed()).isTrue();
            assertThat(second.charge()).isEqualTo(first.charge());
            assertThat(provider.chargeIds()).containsExactly("ch_1");
        } finally {
            callers.shutdownNow();
        }
    }

    @Test
    void when_the_later_call_finishes_first_it_charges_and_the_earlier_replays() throws Exception {
        CallGates stage = new CallGates();
        FakePaymentProvider provider = stage.provider().deduplicateOnKey(true).build();
        ExecutorService callers = Executors.newFixedThreadPool(2);
        try {
            Future<Charge> a = callers.submit(() -> provider.charge("order-42", 10, "k1"));
            stage.awaitEntered(1);
            Future<Charge> b = callers.submit(() -> provider.charge("order-42", 10, "k1"));
            stage.awaitEntered(1);

            stage.open(2);
            Charge second = b.get(PATIENCE_MS, TimeUnit.MILLISECONDS);
            stage.open(1);
            Charge first = a.get(PATIENCE_MS, TimeUnit.MILLISECONDS);

            assertThat(first).isEqualTo(second);
            assertThat(provider.chargeIds()).containsExactly("ch_1");
        } finally {
            callers.shutdownNow();
        }
    }

    @Test
    void many_identical_calls_released_together_make_one_entry() throws Exception {
        FakePaymentProvider provider = FakePaymentProvider.builder().latency(Duration.ZERO).deduplicateOnKey(true).build();
        int callers = 8;
        CountDownLatch start = new CountDownLatch(1);
        List<CompletableFuture<Charge>> calls = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        try {
            for (int i = 0; i < callers; i++) {
                calls.add(CompletableFuture.supplyAsync(() -> {
                    awaitQuietly(start);
                    return provider.charge("order-42", 10, "k1");
                }, pool));
            }
            start.countDown();
            List<Charge> charges = new ArrayList<>();
            for (CompletableFuture<Charge> call : calls) {
                charges.add(call.get(PATIENCE_MS, TimeUnit.MILLISECONDS));
            }

            assertThat(charges).containsOnly(new Charge("ch_1", "order-42", 10, "k1"));
            assertThat(provider.chargeCount()).isEqualTo(1);
            assertThat(provider.callCount()).isEqualTo(callers);
        } finally {
            pool.shutdownNow();
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            if (!latch.await(PATIENCE_MS, TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("never started");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
