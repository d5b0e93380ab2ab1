package dev.idemlab.idempotency.internal;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a 409 tells its caller to wait: the expected duration less the holder's age, one more expected
 * duration for a holder past it, and never more than the lease has left. The durations are given, not
 * measured, so the answers are exact.
 */
class RetryAfterHintTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    @Test
    void aYoungHolderIsGivenTheRestOfTheExpectedDurationNotTheWholeLease() {
        RetryAfterHint hint = new RetryAfterHint(LEASE, Duration.ofSeconds(1));
        assertThat(hint.forLeaseRemaining(Duration.ofMillis(29_700))).isEqualTo(Duration.ofMillis(700));
    }

    @Test
    void aHolderPastTheExpectedDurationIsGivenOneMore() {
        RetryAfterHint hint = new RetryAfterHint(LEASE, Duration.ofSeconds(2));
        assertThat(hint.forLeaseRemaining(Duration.ofSeconds(20))).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void theHintNeverExceedsTheTimeLeftOnTheLease() {
        RetryAfterHint hint = new RetryAfterHint(LEASE, Duration.ofSeconds(10));
        assertThat(hint.forLeaseRemaining(Duration.ofSeconds(3))).isEqualTo(Duration.ofSeconds(3));
        RetryAfterHint longerThanTheLease = new RetryAfterHint(Duration.ofSeconds(2), Duration.ofSeconds(20));
        assertThat(longerThanTheLease.forLeaseRemaining(Duration.ofMillis(1_500))).isEqualTo(Duration.ofMillis(1_500));
    }

    @Test
    void anEndedLeaseGivesNoWait() {
        RetryAfterHint hint = new RetryAfterHint(LEASE, Duration.ofSeconds(1));
        assertThat(hint.forLeaseRemaining(Duration.ofMillis(-5))).isZero();
    }
}
