package dev.idemlab.idempotency;

/**
 * The store failed and the coordinator is configured {@link StoreFailureMode#FAIL_CLOSED}: the
 * action was not run. Also thrown, in either mode, when the transaction of a local effect (see
 * {@code spi.TransactionalAction}) could not be opened or committed with its record: effect and record
 * then landed together or not at all, and a retry with the same key replays them or runs once.
 * HTTP 503.
 */
public final class IdempotencyStoreUnavailableException extends IdempotencyException {

    private static final long serialVersionUID = 1L;

    private final String store;
    private final StorePhase phase;

    public IdempotencyStoreUnavailableException(String operation, String key, String store,
                                                StorePhase phase, Throwable cause) {
        this(operation, key, store, phase, "the coordinator fails closed", cause);
    }

    /** With what the failure meant for the call ({@code consequence}), for a message that says it. */
    public IdempotencyStoreUnavailableException(String operation, String key, String store,
                                                StorePhase phase, String consequence, Throwable cause) {
        super(operation, key, "idempotency store '" + store + "' failed during "
                + phase.name().toLowerCase(java.util.Locale.ROOT) + " and " + consequence + ": "
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
