package dev.idemlab.provider;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What every {@link PaymentProvider} must do, run once per implementation: each subclass puts a
 * {@link FakePaymentProvider} (the ground truth) behind its own transport.
 */
public abstract class PaymentProviderContractTest {

    /** The provider under test, in front of {@code backing}. */
    protected abstract PaymentProvider over(FakePaymentProvider backing);

    private static FakePaymentProvider.Builder backing() {
        return FakePaymentProvider.builder().latency(Duration.ZERO);
    }

    @Test
    void a_charge_is_in_the_ledger_and_found_by_its_id() {
        PaymentProvider provider = over(backing().build());

        Charge first = provider.charge("order-42", 10, "k1");
        Charge second = provider.charge(ChargeRequest.of("order-43", 25));

        assertThat(first).isEqualTo(new Charge("ch_1", "order-42", 10, "k1"));
        assertThat(second).isEqualTo(new Charge("ch_2", "order-43", 25, null));
        assertThat(provider.ledger()).containsExactly(first, second);
        assertThat(provider.chargeIds()).containsExactly("ch_1", "ch_2");
        assertThat(provider.chargeCount()).isEqualTo(2);
        assertThat(provider.findCharge("ch_2")).contains(second);
        assertThat(provider.findCharge("ch_3")).isEmpty();
    }

    /** Issue 42: a caller that lost an answer asks whether its key charged before it calls again. */
    @Test
    void charges_are_looked_up_by_their_idempotency_key_deduplicating_or_not() {
        PaymentProvider provider = over(backing().build());
        String key = "idem_1:ab/c d+e:charge_created";

        assertThat(provider.chargesWithKey(key)).isEmpty();
        Charge first = provider.charge("order-42", 10, key);
        provider.charge("order-43", 10, "another");
        Charge second = provider.charge("order-42", 10, key);

        assertThat(provider.chargesWithKey(key)).containsExactly(first, second);
        assertThat(provider.chargesWithKey("another")).extracting(Charge::id).containsExactly("ch_2");
        assertThat(provider.chargesWithKey("none")).isEmpty();

        PaymentProvider deduplicating = over(backing().deduplicateOnKey(true).build());
        Charge once = deduplicating.charge("order-42", 10, key);
        deduplicating.charge("order-42", 10, key);
        assertThat(deduplicating.chargesWithKey(key)).containsExactly(once);
    }

    @Test
    void a_deduplicating_provider_replays_a_charged_key() {
        FakePaymentProvider backing = backing().deduplicateOnKey(true).build();
        PaymentProvider provider = over(backing);

        Charge first = provider.charge("order-42", 10, "k1");
        Charge replay = provider.charge("order-42", 10, "k1");

        assertThat(replay).isEqualTo(first);
        assertThat(backing.chargeIds()).containsExactly("ch_1");
        assertThat(backing.callCount()).isEqualTo(2);
    }

    @Test
    void a_reused_key_is_refused_with_both_amounts() {
        FakePaymentProvider backing = backing().deduplicateOnKey(true).build();
        PaymentProvider provider = over(backing);
        Charge first = provider.charge("order-42", 10, "k1");

        assertThatThrownBy(() -> provider.charge("order-42", 5, "k1"))
                .isInstanceOfSatisfying(ProviderKeyReuseException.class, e -> {
                    assertThat(e.key()).isEqualTo("k1");
                    assertThat(e.earlierCharge()).isEqualTo(first);
                    assertThat(e.chargedAmount()).isEqualTo(10);
                    assertThat(e.requestedOrderId()).isEqualTo("order-42");
                    assertThat(e.requestedAmount()).isEqualTo(5);
                });
        assertThat(backing.chargeIds()).containsExactly("ch_1");
    }

    @Test
    void a_stale_fence_is_refused_and_an_equal_one_accepted() {
        FakePaymentProvider backing = backing().checkFences(true).build();
        PaymentProvider provider = over(backing);
        provider.charge(ChargeRequest.of("order-42", 10, "k1").withFence(3));

        assertThatThrownBy(() -> provider.charge(ChargeRequest.of("order-42", 10, "k1").withFence(2)))
                .isInstanceOfSatisfying(StaleFenceException.class, e -> {
                    assertThat(e.key()).isEqualTo("k1");
                    assertThat(e.fence()).isEqualTo(2);
                    assertThat(e.highestSeen()).isEqualTo(3);
                });
        provider.charge(ChargeRequest.of("order-42", 10, "k1").withFence(3));
        assertThat(backing.chargeIds()).containsExactly("ch_1", "ch_2");
    }

    @Test
    void a_timeout_before_charging_charges_nothing() {
        FakePaymentProvider backing = backing().build();
        PaymentProvider provider = over(backing);
        backing.failNextCalls(1);

        assertThatThrownBy(() -> provider.charge("order-42", 10, "k1"))
                .isInstanceOfSatisfying(ProviderTimeoutException.class,
                        e -> assertThat(e.orderId()).isEqualTo("order-42"));
        assertThat(backing.chargeCount()).isZero();
    }

    @Test
    void a_timeout_after_charging_leaves_the_charge_in_the_ledger() {
        FakePaymentProvider backing = backing().build();
        PaymentProvider provider = over(backing);
        backing.chargeThenTimeOutNextCalls(1);

        assertThatThrownBy(() -> provider.charge("order-42", 10, "k1")).isInstanceOf(ProviderTimeoutException.class);
        assertThat(provider.ledger()).containsExactly(new Charge("ch_1", "order-42", 10, "k1"));
    }
}
