package dev.idemlab.idempotency.store.postgres;

import dev.idemlab.idempotency.InvalidIdempotencyConfigException;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Issue 39, defect 5, on PostgreSQL: settings the builder took but the driver or the circuit cannot run
 * with. The driver turns its connect and socket timeouts (whole seconds) into an int of milliseconds,
 * which overflows past 2147483 s; a circuit cool-down under a millisecond failed the store's construction
 * inside the circuit breaker; an absurd timeout made the builder itself throw {@code ArithmeticException}
 * instead of naming the rule. Each is refused when the config is built, naming the rule.
 */
class PostgresSettingsThatCannotWorkAreRefusedTest {

    private static final String URL = "jdbc:postgresql://127.0.0.1:5432/app";

    private static InvalidIdempotencyConfigException refusal(PostgresStoreConfig.Builder builder) {
        Throwable thrown = catchThrowable(builder::build);
        assertThat(thrown).isInstanceOf(InvalidIdempotencyConfigException.class);
        return (InvalidIdempotencyConfigException) thrown;
    }

    @Test
    void driverTimeoutsPastAnIntOfMillisecondsAreRefused() {
        assertThat(refusal(PostgresStoreConfig.custom(URL).socketTimeout(Duration.ofSeconds(2_147_484))).rule())
                .contains("at most 2147483");
        assertThat(refusal(PostgresStoreConfig.custom(URL).connectTimeout(Duration.ofSeconds(2_147_484))).setting())
                .isEqualTo("connectTimeout");
        assertThat(refusal(PostgresStoreConfig.custom(URL).socketTimeout(Duration.ofSeconds(Long.MAX_VALUE))).setting())
                .as("named, not an ArithmeticException").isEqualTo("socketTimeout");
        assertThat(PostgresStoreConfig.custom(URL).socketTimeout(Duration.ofSeconds(2_147_483)).build().socketTimeout())
                .isEqualTo(Duration.ofSeconds(2_147_483));
    }

    @Test
    void aCircuitCoolDownUnderAMillisecondIsRefused() {
        assertThat(refusal(PostgresStoreConfig.custom(URL).circuitCoolDown(Duration.ofNanos(500_000))).rule())
                .startsWith("must be at least 1 ms");
    }
}
