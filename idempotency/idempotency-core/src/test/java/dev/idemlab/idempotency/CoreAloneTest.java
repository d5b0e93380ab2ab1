package dev.idemlab.idempotency;

import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A service that depends on {@code idempotency-core} alone: this test runs in its own surefire
 * execution with Jackson, Micrometer and Resilience4j taken off the class path (see the module's
 * pom), and builds and uses a coordinator with a codec written by hand.
 */
class CoreAloneTest {

    /** What a service without Jackson writes: its own tiny codec. */
    private static final ResultCodec<String> CHARGE_ID = new ResultCodec<>() {
        @Override
        public String encode(String result) {
            return "\"" + result + "\"";
        }

        @Override
        public String decode(String json) {
            return json.substring(1, json.length() - 1);
        }
    };

    @Test
    void jacksonMicrometerAndResilience4jAreReallyNotOnTheClassPath() {
        assertThatThrownBy(() -> Class.forName("com.fasterxml.jackson.databind.ObjectMapper"))
                .isInstanceOf(ClassNotFoundException.class);
        assertThatThrownBy(() -> Class.forName("io.micrometer.core.instrument.MeterRegistry"))
                .isInstanceOf(ClassNotFoundException.class);
        assertThatThrownBy(() -> Class.forName("io.micrometer.observation.ObservationRegistry"))
                .isInstanceOf(ClassNotFoundException.class);
        assertThatThrownBy(() -> Class.forName("io.github.resilience4j.circuitbreaker.CircuitBreaker"))
                .isInstanceOf(ClassNotFoundException.class);
    }

    @Test
    void aCoordinatorRunsOnceAndReplaysWithAHandWrittenCodec() {
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(new InMemoryIdempotencyStore()).build();
        AtomicInteger charges = new AtomicInteger();
        IdempotentCall call = IdempotentCall.of("payment.charge", "order-42",
                Fingerprint.ofFields(Map.of("order_id", "42", "amount", 10)));

        String first = coordinator.execute(call, CHARGE_ID, () -> "ch_" + charges.incrementAndGet());
        IdempotentResult<String> retry = coordinator.call(call, CHARGE_ID, () -> "ch_" + charges.incrementAndGet());

        assertThat(first).isEqualTo("ch_1");
        assertThat(retry.value()).isEqualTo("ch_1");
        assertThat(retry.outcome()).isEqualTo(Outcome.REPLAYED);
        assertThat(charges).hasValue(1);
        assertThat(coordinator.stats().count(Outcome.EXECUTED)).isEqualTo(1);
    }

    @Test
    void recordsAreFingerprintedWithoutJackson() {
        record Charge(String orderId, long amount, String traceId) { }
        assertThat(Fingerprint.ofNamed(new Charge("42", 10, "a"), "orderId", "amount"))
                .isEqualTo(Fingerprint.ofNamed(new Charge("42", 10, "b"), "orderId", "amount"))
                .isEqualTo(Fingerprint.ofFields(Map.of("orderId", "42", "amount", 10)));
    }

    @Test
    void theJacksonFeaturesSayWhatTheyNeed() {
        assertThatThrownBy(() -> ResultCodec.json(String.class))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("jackson-databind");
        assertThatThrownBy(() -> Fingerprint.ofFields(Map.of("when", new Object())))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("jackson-databind");
    }
}
