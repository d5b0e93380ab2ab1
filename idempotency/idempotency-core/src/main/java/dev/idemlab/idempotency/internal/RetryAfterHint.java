package dev.idemlab.idempotency.internal;

import java.time.Duration;

/**
 * How long a caller refused with 409 (the key's first request still in flight) is told to wait,
 * from what the coordinator knows: how long the holder has held its lease, and how long such a
 * request is expected to take. The whole lease is a bound on a dead holder, not a forecast: a charge
 * that takes 0.3 s would keep its retries away for 30 s.
 *
 * <p>The holder's age is read off the lease it holds: {@code lease - leaseRemaining}, the time since
 * it reserved the key or last renewed its lease (the stores keep no start time). The hint is the
 * expected duration minus that age; a holder past its expected duration gets one more expected
 * duration. It is never more than the time left on the lease, after which the key can be taken over
 * anyway. Immutable and thread-safe.
 */
final class RetryAfterHint {

    private final Duration lease;
    private final Duration expectedDuration;

    RetryAfterHint(Duration lease, Duration expectedDuration) {
        this.lease = lease;
        this.expectedDuration = expectedDuration;
    }

    /** The hint for a holder whose lease has {@code leaseRemaining} left now. */
    Duration forLeaseRemaining(Duration leaseRemaining) {
        Duration remaining = leaseRemaining.isNegative() ? Duration.ZERO : leaseRemaining;
        Duration age = lease.minus(remaining);
        if (age.isNegative()) {
            age = Duration.ZERO; // a holder with a longer lease than ours: as young as can be
        }
        Duration untilExpectedEnd = expectedDuration.minus(age);
        Duration hint = untilExpectedEnd.isNegative() || untilExpectedEnd.isZero() ? expectedDuration : untilExpectedEnd;
        return hint.compareTo(remaining) > 0 ? remaining : hint;
    }
}
