package dev.idemlab.idempotency;

/**
 * The key's request completed, but its result cannot be replayed: it was too large or could not
 * be encoded when it was produced, or the stored record cannot be read. The action is never run a
 * second time for it. HTTP 500.
 */
public final class IdempotentReplayUnavailableException extends IdempotencyException {

    private static final long serialVersionUID = 1L;

    private final String reason;

    public IdempotentReplayUnavailableException(String operation, String key, String reason, Throwable cause) {
        super(operation, key, "request with idempotency key '" + key + "' of operation '" + operation
                + "' already completed, but its result cannot be replayed: " + reason, cause);
        this.reason = reason;
    }

    /** Why the result cannot be replayed. */
    public String reason() {
        return reason;
    }

    @Override
    public int httpStatus() {
        return 500;
    }
}
