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

    /** How long the in-flight request's lease has left: a hint for a Retry-After header. */
    public Duration retryAfter() {
        return retryAfter;
    }

    @Override
    public int httpStatus() {
        return 409;
    }
}
