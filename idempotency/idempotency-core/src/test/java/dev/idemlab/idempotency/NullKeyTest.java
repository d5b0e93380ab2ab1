package dev.idemlab.idempotency;

import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 39, defect 7c: an {@code @Idempotent} method called with a {@code null} key through
 * {@code Idempotency.proxy}. By default it runs unguarded and every such call is counted as
 * {@link Outcome#BYPASSED} (the WARN it logs once per method is checked in the starter's tests, which
 * capture the log); with {@code nullKey = REFUSE} it is refused with a 400 before anything runs. On the
 * real in-memory store; the implementation counts its runs.
 */
class NullKeyTest {

    interface Charges {
        @Idempotent(operation = "charge.optional")
        String charge(@IdempotencyKey String key, long amount);

        @Idempotent(operation = "charge.later")
        CompletableFuture<String> chargeLater(@IdempotencyKey String key, long amount);

        @Idempotent(operation = "charge.required", nullKey = Idempotent.NullKey.REFUSE)
        String chargeWithKey(@IdempotencyKey String key, long amount);
    }

    static final class CountingCharges implements Charges {
        final AtomicInteger runs = new AtomicInteger();

        @Override
        public String charge(String key, long amount) {
            return "ch_" + runs.incrementAndGet();
        }

        @Override
        public CompletableFuture<String> chargeLater(String key, long amount) {
            return CompletableFuture.completedFuture("ch_" + runs.incrementAndGet());
        }

        @Override
        public String chargeWithKey(String key, long amount) {
            return "ch_" + runs.incrementAndGet();
        }
    }

    private final IdempotencyCoordinator coordinator =
            IdempotencyCoordinator.builder(new InMemoryIdempotencyStore()).build();
    private final CountingCharges target = new CountingCharges();
    private final Charges charges = Idempotency.proxy(Charges.class, target, coordinator);

    @Test
    void aNullKeyRunsEveryCallAndCountsEachAsBypassed() {
        assertThat(charges.charge(null, 10)).isEqualTo("ch_1");
        assertThat(charges.charge(null, 10)).isEqualTo("ch_2");
        assertThat(charges.chargeLater(null, 10).join()).isEqualTo("ch_3");

        assertThat(target.runs).hasValue(3);
        assertThat(coordinator.stats().count(Outcome.BYPASSED)).isEqualTo(3);
        assertThat(coordinator.stats().count(Outcome.EXECUTED)).isZero();
    }

    @Test
    void aNullKeyIsRefusedWith400BeforeAnythingRunsWhenTheMethodSaysRefuse() {
        assertThatThrownBy(() -> charges.chargeWithKey(null, 10))
                .isInstanceOf(InvalidIdempotencyKeyException.class)
                .hasMessageContaining("Charges.chargeWithKey")
                .hasMessageContaining("nullKey = REFUSE")
                .satisfies(e -> assertThat(((IdempotencyException) e).httpStatus()).isEqualTo(400));

        assertThat(target.runs).hasValue(0);
        assertThat(coordinator.stats().count(Outcome.BYPASSED)).isZero();
        assertThat(charges.chargeWithKey("k-1", 10)).isEqualTo(charges.chargeWithKey("k-1", 10));
        assertThat(target.runs).hasValue(1);
    }
}
