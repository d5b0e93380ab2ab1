package dev.idemlab.provider;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FenceCheckTest {

    private final FakePaymentProvider provider = FakePaymentProvider.builder()
            .latency(Duration.ZERO).checkFences(true).build();

    @Test
    void a_fence_lower_than_the_highest_seen_is_refused_and_charges_nothing() {
        provider.charge(ChargeRequest.of("order-42", 10, "k1").withFence(2));

        assertThatThrownBy(() -> provider.charge(ChargeRequest.of("order-42", 10, "k1").withFence(1)))
                .isInstanceOfSatisfying(StaleFenceException.class, e -> {
                    assertThat(e.key()).isEqualTo("k1");
                    assertThat(e.fence()).isEqualTo(1);
                    assertThat(e.highestSeen()).isEqualTo(2);
                });
        assertThat(provider.chargeIds()).containsExactly("ch_1");
    }

    @Test
    void an_equal_or_higher_fence_is_accepted() {
        provider.charge(ChargeRequest.of("order-42", 10, "k1").withFence(2));
        provider.charge(ChargeRequest.of("order-42", 10, "k1").withFence(2));
        provider.charge(ChargeRequest.of("order-42", 10, "k1").withFence(3));

        assertThat(provider.chargeIds()).containsExactly("ch_1", "ch_2", "ch_3");
    }

    @Test
    void without_a_key_the_fence_belongs_to_the_order() {
        provider.charge(ChargeRequest.of("order-42", 10).withFence(5));
        provider.charge(ChargeRequest.of("order-43", 10).withFence(1));

        assertThatThrownBy(() -> provider.charge(ChargeRequest.of("order-42", 10).withFence(4)))
                .isInstanceOfSatisfying(StaleFenceException.class, e -> assertThat(e.key()).isEqualTo("order-42"));
        assertThat(provider.chargeIds()).containsExactly("ch_1", "ch_2");
    }

    @Test
    void calls_without_a_fence_are_not_checked() {
        provider.charge(ChargeRequest.of("order-42", 10, "k1").withFence(9));
        provider.charge(ChargeRequest.of("order-42", 10, "k1"));

        assertThat(provider.chargeIds()).containsExactly("ch_1", "ch_2");
    }

    @Test
    void fences_are_ignored_when_the_check_is_off() {
        FakePaymentProvider unchecked = FakePaymentProvider.builder().latency(Duration.ZERO).build();
        unchecked.charge(ChargeRequest.of("order-42", 10, "k1").withFence(2));
        unchecked.charge(ChargeRequest.of("order-42", 10, "k1").withFence(1));

        assertThat(unchecked.chargeIds()).containsExactly("ch_1", "ch_2");
    }

    /** The new holder is still inside the provider when the stale one arrives: refused at once. */
    @Test
    void the_fence_is_recorded_when_the_call_arrives_not_when_it_charges() throws Exception {
        CallGates stage = new CallGates();
        FakePaymentProvider gated = stage.provider().checkFences(true).build();
        CompletableFuture<Charge> newHolder = CompletableFuture.supplyAsync(
                () -> gated.charge(ChargeRequest.of("order-42", 10, "k1").withFence(2)));
        stage.awaitEntered(1);

        assertThatThrownBy(() -> gated.charge(ChargeRequest.of("order-42", 10, "k1").withFence(1)))
                .isInstanceOf(StaleFenceException.class);
        assertThat(gated.chargeCount()).isZero();

        stage.open(1);
        assertThat(newHolder.get(CallGates.PATIENCE.toMillis(), TimeUnit.MILLISECONDS).id()).isEqualTo("ch_1");
        assertThat(gated.chargeIds()).containsExactly("ch_1");
    }
}
