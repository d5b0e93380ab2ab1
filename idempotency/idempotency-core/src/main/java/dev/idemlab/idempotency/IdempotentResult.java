package dev.idemlab.idempotency;

/**
 * An action's result together with how the coordinator produced it.
 *
 * @param value the result: fresh from the action, or replayed
 * @param outcome {@link Outcome#EXECUTED}, {@link Outcome#REPLAYED}, {@link Outcome#WAITED},
 *     {@link Outcome#BYPASSED} or {@link Outcome#FAILED_OPEN}
 * @param <T> the result type
 */
public record IdempotentResult<T>(T value, Outcome outcome) {

    /** Whether this caller's action ran (as opposed to a replay). */
    public boolean ranAction() {
        return outcome == Outcome.EXECUTED || outcome == Outcome.BYPASSED || outcome == Outcome.FAILED_OPEN
                || outcome == Outcome.LEASE_LOST;
    }
}
