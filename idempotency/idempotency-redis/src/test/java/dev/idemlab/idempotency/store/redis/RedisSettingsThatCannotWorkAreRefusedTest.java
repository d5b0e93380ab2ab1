package dev.idemlab.idempotency.store.redis;

import dev.idemlab.idempotency.InvalidIdempotencyConfigException;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 39, defect 5, on Redis: settings the builder took but the client cannot run with. A connect
 * timeout of 30 days overflowed the connection's int of milliseconds (an {@code ArithmeticException} at
 * the first connect), one under a millisecond became no timeout at all; a circuit cool-down under a
 * millisecond failed the store's construction inside the circuit breaker; a WAIT timeout under a
 * millisecond was sent as {@code WAIT n 0}, which waits forever. Each is refused when the config is
 * built, naming the rule.
 */
class RedisSettingsThatCannotWorkAreRefusedTest {

    private static final String URI = "redis://127.0.0.1:6379";

    private static InvalidIdempotencyConfigException refusal(RedisStoreConfig.Builder builder) {
        Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(builder::build);
        assertThat(thrown).isInstanceOf(InvalidIdempotencyConfigException.class);
        return (InvalidIdempotencyConfigException) thrown;
    }

    @Test
    void aConnectTimeoutPastAnIntOfMillisecondsOrUnderOneIsRefused() {
        assertThat(refusal(RedisStoreConfig.custom().uri(URI).connectTimeout(Duration.ofDays(30))).rule())
                .startsWith("connectTimeout must be between 1 ms and 2147483647 ms");
        assertThat(refusal(RedisStoreConfig.custom().uri(URI).connectTimeout(Duration.ofNanos(500_000))).setting())
                .isEqualTo("connectTimeout");
        assertThat(RedisStoreConfig.custom().uri(URI).connectTimeout(Duration.ofMillis(Integer.MAX_VALUE)).build()
                .connectTimeout()).isEqualTo(Duration.ofMillis(Integer.MAX_VALUE));
    }

    @Test
    void aCircuitCoolDownUnderAMillisecondIsRefused() {
        assertThat(refusal(RedisStoreConfig.custom().uri(URI).circuitCoolDown(Duration.ofNanos(500_000))).rule())
                .startsWith("circuitCoolDown must be between 1 ms");
    }

    @Test
    void aWaitTimeoutUnderAMillisecondIsRefused() {
        assertThat(refusal(RedisStoreConfig.custom().uri(URI).waitForReplicas(1, Duration.ofNanos(500_000))).rule())
                .contains("at least 1 ms").contains("0 waits forever");
        assertThatThrownBy(() -> RedisStoreConfig.custom().uri(URI).waitForReplicas(1, Duration.ofSeconds(5)).build())
                .as("still shorter than the command timeout").isInstanceOf(InvalidIdempotencyConfigException.class);
    }
}
