package dev.idemlab.idempotency;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 39, defect 5: a lease of a few nanoseconds was accepted and derived a heartbeat interval of
 * zero, which no timer can run at (the owner's first renewal would fail to be scheduled); an explicit
 * interval of a nanosecond was accepted too. Both are refused when the config is built, naming the rule.
 */
class SettingsThatCannotWorkAreRefusedTest {

    @Test
    void aLeaseOfAFewNanosecondsIsRefusedNamingTheHeartbeatRule() {
        assertThatThrownBy(() -> IdempotencyConfig.custom().lease(Duration.ofNanos(5)).build())
                .isInstanceOfSatisfying(InvalidIdempotencyConfigException.class, e -> assertThat(e.rule())
                        .isEqualTo("lease must be at least PT0.003S, so that the heartbeat renewing it at a third of"
                                + " the lease runs at an interval of at least PT0.001S"));
        assertThatThrownBy(() -> IdempotencyConfig.custom().lease(Duration.ofNanos(2_999_999)).build())
                .isInstanceOf(InvalidIdempotencyConfigException.class);
    }

    @Test
    void theShortestLeaseDerivesAHeartbeatThatCanRun() {
        IdempotencyConfig config = IdempotencyConfig.custom().lease(IdempotencyConfig.MIN_LEASE).build();
        assertThat(config.heartbeatInterval()).isEqualTo(IdempotencyConfig.MIN_HEARTBEAT_INTERVAL).isPositive();
    }

    @Test
    void anExplicitHeartbeatIntervalUnderAMillisecondIsRefused() {
        assertThatThrownBy(() -> IdempotencyConfig.custom().heartbeatInterval(Duration.ofNanos(1)).build())
                .isInstanceOfSatisfying(InvalidIdempotencyConfigException.class, e -> assertThat(e.rule())
                        .startsWith("heartbeatInterval must be at least PT0.001S"));
        assertThat(IdempotencyConfig.custom().heartbeatInterval(Duration.ofMillis(1)).build().heartbeatInterval())
                .isEqualTo(Duration.ofMillis(1));
    }
}
