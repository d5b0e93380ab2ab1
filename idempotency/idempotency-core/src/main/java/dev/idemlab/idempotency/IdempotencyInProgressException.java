package dev.idemlab.idempotency;

import java.time.Duration;

/**
 * An identical request with the same key is still running, and the policy is
 * {@link InFlightPolicy#RAISE} (or a wait ran out). HTTP 409, with {@link #retryAfter()} as a hint.
 */
public final class IdempotencyInProgressException extends IdempotencyException {

    private static final long serialVersionUID = 1L;

    private final Duration retryAfter;

    public IdempotencyInProgressException(String operation, String key, Duration retryAfter) {
        super(operation, key, "a request with idempotency key '" + key + "' of operation '" + operation
                + "' is already in flight; retry after " + retryAfter.toMillis() + " ms", null);
        this.retryAfter = retryAfter;
    }

    /**
     * When to try again, a hint for a Retry-After header: the coordinator's
     * {@link IdempotencyConfig#expectedDuration() expected duration} less the holder's age (one more
     * expected duration for a holder past it), never more than the time left on the holder's lease.
     */
    public Duration retryAfter() {
        return retryAfter;
    }

    @Override
    public int httpStatus() {
        return 409;
    }
}
