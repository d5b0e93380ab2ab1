package dev.idemlab.provider;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FakePaymentProviderTest {

    private final FakePaymentProvider provider = FakePaymentProvider.builder().latency(Duration.ZERO).build();

    @Test
    void every_charge_lands_in_the_ledger_even_with_the_same_key_when_deduplication_is_off() {
        Charge first = provider.charge("order-42", 10, "k1");
        Charge second = provider.charge("order-42", 10, "k1");

        assertThat(first).isEqualTo(new Charge("ch_1", "order-42", 10, "k1"));
        assertThat(second.id()).isEqualTo("ch_2");
        assertThat(provider.chargeIds()).containsExactly("ch_1", "ch_2");
        assertThat(provider.chargeCount()).isEqualTo(2);
        assertThat(provider.callCount()).isEqualTo(2);
    }

    @Test
    void the_three_argument_charge_is_a_request_without_a_fence() {
        Charge charge = provider.charge(new ChargeRequest("order-7", 25, null, null));

        assertThat(charge).isEqualTo(new Charge("ch_1", "order-7", 25, null));
        assertThat(provider.ledger()).containsExactly(charge);
    }

    @Test
    void a_charge_is_found_by_its_id() {
        Charge charge = provider.charge("order-42", 10, null);

        assertThat(provider.findCharge("ch_1")).contains(charge);
        assertThat(provider.findCharge("ch_2")).isEmpty();
    }

    @Test
    void failed_calls_time_out_before_charging_and_count_as_calls() {
        provider.failNextCalls(2);

        assertThatThrownBy(() -> provider.charge("order-42", 10, "k1")).isInstanceOf(ProviderTimeoutException.class)
                .hasMessageContaining("before charging");
        assertThatThrownBy(() -> provider.charge("order-42", 10, "k1")).isInstanceOf(ProviderTimeoutException.class);
        assertThat(provider.charge("order-42", 10, "k1").id()).isEqualTo("ch_1");
        assertThat(provider.callCount()).isEqualTo(3);
        assertThat(provider.chargeIds()).containsExactly("ch_1");
    }

    @Test
    void a_bad_request_is_refused_before_it_counts_as_a_call() {
        assertThatThrownBy(() -> provider.charge("order-42", 0, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("amount must be positive: 0");
        assertThatThrownBy(() -> provider.charge(null, 10, null))
                .isInstanceOf(NullPointerException.class).hasMessage("orderId");
        assertThatThrownBy(() -> provider.failNextCalls(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> provider.chargeThenTimeOutNextCalls(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(provider.callCount()).isZero();
    }

    @Test
    void the_ledger_is_a_snapshot() {
        provider.charge("order-42", 10, null);
        var ledger = provider.ledger();
        provider.charge("order-43", 10, null);

        assertThat(ledger).hasSize(1);
        assertThatThrownBy(() -> ledger.add(ledger.get(0))).isInstanceOf(UnsupportedOperationException.class);
    }
}
