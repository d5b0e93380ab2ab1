package dev.idemlab.idempotency;

/**
 * What a caller gets when an identical request with the same key is still running. Both policies
 * reserve the key before the action runs, so the action runs at most once per key while the store
 * is up; they differ only in what the second caller is told.
 */
public enum InFlightPolicy {

    /**
     * Reserve the key before running; a second caller waits for the first one's result and
     * replays it. The default: right for internal callers.
     */
    WAIT,

    /**
     * Reserve the key before running; a second caller fails fast with
     * {@link IdempotencyInProgressException} (HTTP 409). Right for public APIs.
     */
    RAISE
}
