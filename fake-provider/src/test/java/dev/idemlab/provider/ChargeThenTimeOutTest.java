package dev.idemlab.provider;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ChargeThenTimeOutTest {

    @Test
    void the_ledger_has_the_charge_and_the_caller_got_a_timeout() {
        FakePaymentProvider provider = FakePaymentProvider.builder().latency(Duration.ZERO).build();
        provider.chargeThenTimeOutNextCalls(1);

        assertThatThrownBy(() -> provider.charge("order-42", 10, "k1"))
                .isInstanceOfSatisfying(ProviderTimeoutException.class,
                        e -> assertThat(e.orderId()).isEqualTo("order-42"));
        assertThat(provider.ledger()).containsExactly(new Charge("ch_1", "order-42", 10, "k1"));
    }

    @Test
    void a_blind_retry_charges_twice() {
        FakePaymentProvider provider = FakePaymentProvider.builder().latency(Duration.ZERO).build();
        provider.chargeThenTimeOutNextCalls(1);

        assertThatThrownBy(() -> provider.charge("order-42", 10, "k1")).isInstanceOf(ProviderTimeoutException.class);
        provider.charge("order-42", 10, "k1");

        assertThat(provider.chargeIds()).containsExactly("ch_1", "ch_2");
    }

    @Test
    void a_retry_with_the_same_key_replays_the_lost_charge_when_the_provider_deduplicates() {
        FakePaymentProvider provider = FakePaymentProvider.builder().latency(Duration.ZERO).deduplicateOnKey(true).build();
        provider.chargeThenTimeOutNextCalls(1);

        assertThatThrownBy(() -> provider.charge("order-42", 10, "k1")).isInstanceOf(ProviderTimeoutException.class);
        ChargeResult retry = provider.chargeOrReplay(ChargeRequest.of("order-42", 10, "k1"));

        assertThat(retry.replayed()).isTrue();
        assertThat(retry.charge().id()).isEqualTo("ch_1");
        assertThat(provider.chargeIds()).containsExactly("ch_1");
    }

    @Test
    void planned_faults_are_taken_in_the_order_they_were_planned() {
        List<String> seen = new ArrayList<>();
        FakePaymentProvider provider = FakePaymentProvider.builder().latency(Duration.ZERO)
                .observer(new ProviderObserver() {
                    @Override
                    public void charged(int callNumber, Charge charge) {
                        seen.add(callNumber + " charged " + charge.id());
                    }

                    @Override
                    public void timedOut(int callNumber, String orderId) {
                        seen.add(callNumber + " timed out");
                    }

                    @Override
                    public void replyLost(int callNumber, Charge charge) {
                        seen.add(callNumber + " lost reply for " + charge.id());
                    }
                })
                .build();
        provider.failNextCalls(1);
        provider.chargeThenTimeOutNextCalls(1);
        provider.failNextCalls(1);

        for (int call = 0; call < 3; call++) {
            assertThatThrownBy(() -> provider.charge("order-42", 10, null)).isInstanceOf(ProviderTimeoutException.class);
        }
        provider.charge("order-42", 10, null);

        assertThat(seen).containsExactly("1 timed out", "2 charged ch_1", "2 lost reply for ch_1", "3 timed out",
                "4 charged ch_2");
    }
}
