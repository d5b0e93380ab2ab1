package dev.idemlab.idempotency;

/**
 * What the coordinator does when its store cannot be reached. With the store gone there is no way
 * to know whether a key was seen before, so this is a decision about the operation, made out loud.
 */
public enum StoreFailureMode {

    /**
     * Log at WARN, count the storage error and run the action anyway: availability over
     * exactly-once. The default.
     */
    FAIL_OPEN,

    /**
     * Refuse the call with {@link IdempotencyStoreUnavailableException} (HTTP 503) without running
     * the action.
     */
    FAIL_CLOSED
}
