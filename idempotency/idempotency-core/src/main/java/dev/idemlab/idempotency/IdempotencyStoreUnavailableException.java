package dev.idemlab.idempotency;

/**
 * The store failed and the coordinator is configured {@link StoreFailureMode#FAIL_CLOSED}: the
 * action was not run. HTTP 503.
 */
public final class IdempotencyStoreUnavailableException extends IdempotencyException {

    private static final long serialVersionUID = 1L;

    private final String store;
    private final StorePhase phase;

    public IdempotencyStoreUnavailableException(String operation, String key, String store,
                                                StorePhase phase, Throwable cause) {
        super(operation, key, "idempotency store '" + store + "' failed during "
                + phase.name().toLowerCase(java.util.Locale.ROOT) + " and the coordinator fails closed: "
                + cause.getMessage(), cause);
        this.store = store;
        this.phase = phase;
    }

    /** The name of the store that failed. */
    public String store() {
        return store;
    }

    /** The store operation that failed. */
    public StorePhase phase() {
        return phase;
    }

    @Override
    public int httpStatus() {
        return 503;
    }
}
