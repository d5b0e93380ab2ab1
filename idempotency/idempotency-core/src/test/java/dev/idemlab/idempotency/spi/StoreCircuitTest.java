package dev.idemlab.idempotency.spi;

import dev.idemlab.idempotency.spi.IdempotencyStoreException.Failure;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

class StoreCircuitTest {

    private final AtomicInteger attempts = new AtomicInteger();

    private String fails(Failure failure) {
        attempts.incrementAndGet();
        throw new IdempotencyStoreException("redis", "payment.charge:k", failure, "as the test asks", null);
    }

    private String answers() {
        attempts.incrementAndGet();
        return "answer";
    }

    /** Opens {@code circuit} the way a store does: one call finds the server unreachable. */
    private void openByAnUnreachableServer(StoreCircuit circuit) {
        assertThatThrownBy(() -> circuit.call("payment.charge:k", () -> fails(Failure.UNREACHABLE)))
                .isInstanceOfSatisfying(IdempotencyStoreException.class,
                        e -> assertThat(e.failure()).isEqualTo(Failure.UNREACHABLE));
    }

    @Test
    void anUnreachableServerOpensTheCircuitAndTheNextCallsFailWithoutTrying() {
        StoreCircuit circuit = new StoreCircuit("redis", "redis-test", Duration.ofMinutes(1));

        openByAnUnreachableServer(circuit);
        assertThat(circuit.state()).isEqualTo("OPEN");

        assertThatThrownBy(() -> circuit.call("payment.charge:k2", this::answers))
                .isInstanceOfSatisfying(IdempotencyStoreException.class, e -> {
                    assertThat(e.failure()).isEqualTo(Failure.CIRCUIT_OPEN);
                    assertThat(e.getMessage()).contains("payment.charge:k2", "60000 ms");
                });
        assertThat(attempts).hasValue(1);
    }

    @Test
    void aStallABusyServerOrAnUnreadableAnswerLeavesTheCircuitClosed() {
        StoreCircuit circuit = new StoreCircuit("postgres", "postgres-test", Duration.ofMinutes(1));

        assertThatThrownBy(() -> circuit.call("payment.charge:k", () -> fails(Failure.TIMEOUT)))
                .isInstanceOf(IdempotencyStoreException.class);
        assertThatThrownBy(() -> circuit.call("payment.charge:k", () -> fails(Failure.BUSY)))
                .isInstanceOf(IdempotencyStoreException.class);
        assertThatThrownBy(() -> circuit.call("payment.charge:k", () -> fails(Failure.OTHER)))
                .isInstanceOf(IdempotencyStoreException.class);

        assertThat(circuit.state()).isEqualTo("CLOSED");
        assertThat(circuit.call("payment.charge:k", this::answers)).isEqualTo("answer");
        assertThat(attempts).hasValue(4);
    }

    @Test
    void afterTheCoolDownOneProbeThatFindsTheServerClosesTheCircuitAgain() {
        StoreCircuit circuit = new StoreCircuit("redis", "redis-test", Duration.ofMillis(50));
        openByAnUnreachableServer(circuit);

        await().atMost(Duration.ofSeconds(10)).untilAsserted(
                () -> assertThat(circuit.call("payment.charge:k", this::answers)).isEqualTo("answer"));

        assertThat(circuit.state()).isEqualTo("CLOSED");
    }

    @Test
    void aProbeThatFindsTheServerStillDownOpensTheCircuitAgain() {
        StoreCircuit circuit = new StoreCircuit("redis", "redis-test", Duration.ofMillis(50));
        openByAnUnreachableServer(circuit);

        await().atMost(Duration.ofSeconds(10)).until(() -> {
            try {
                circuit.call("payment.charge:k", () -> fails(Failure.UNREACHABLE));
            } catch (IdempotencyStoreException e) {
                return e.failure() == Failure.UNREACHABLE; // the probe itself ran and failed
            }
            return false;
        });

        assertThat(circuit.state()).isEqualTo("OPEN");
        assertThat(attempts).hasValue(2);
    }
}
