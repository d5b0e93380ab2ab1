package dev.idemlab.idempotency;

/**
 * A holder whose key was taken over could not commit its local effect: its lease ran out (it was
 * paused, or slower than the lease) and another attempt reserved the key, so the completion that
 * shares the effect's transaction found the reservation no longer this holder's, and the whole
 * transaction was rolled back. Nothing this call did was kept; the attempt that holds the key now
 * produces the answer, which a retry with the same key receives. HTTP 409.
 */
public final class IdempotencyFencedException extends IdempotencyException {

    private static final long serialVersionUID = 1L;

    private final long fence;

    public IdempotencyFencedException(String operation, String key, long fence) {
        super(operation, key, "the reservation of key '" + key + "' for " + operation + " (fence " + fence
                + ") was taken over by another attempt before this one committed: its transaction, effect "
                + "included, was rolled back; retry with the same key for the new holder's answer", null);
        this.fence = fence;
    }

    /** The fencing number of the reservation this holder had. */
    public long fence() {
        return fence;
    }

    @Override
    public int httpStatus() {
        return 409;
    }
}
