package dev.idemlab.idempotency;

/**
 * The caller's thread was interrupted before its action ran, so the action did not run. The
 * thread's interrupt flag is kept. A reservation the call may have made is released. HTTP 503.
 */
public final class IdempotencyInterruptedException extends IdempotencyException {

    private static final long serialVersionUID = 1L;

    public IdempotencyInterruptedException(String operation, String key, Throwable cause) {
        super(operation, key, "the call with idempotency key '" + key + "' of operation '" + operation
                + "' was interrupted before its action ran; the action did not run", cause);
    }

    @Override
    public int httpStatus() {
        return 503;
    }
}
