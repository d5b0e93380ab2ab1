package dev.idemlab.idempotency;

/**
 * What a caller gets when an identical request with the same key is still running.
 */
public enum InFlightPolicy {

    /**
     * The broken baseline, kept on purpose: a result cache with first-writer-wins. The second
     * caller finds no result, runs the action too, and returns whichever result was stored first.
     * Responses agree; the effect happens twice. Never use it for anything that must happen once.
     */
    RUN,

    /**
     * Reserve the key before running; a second caller waits for the first one's result and
     * replays it. The default: right for internal callers.
     */
    WAIT,

    /**
     * Reserve the key before running; a second caller fails fast with
     * {@link IdempotencyInProgressException} (HTTP 409). Right for public APIs.
     */
    RAISE;

    /** Whether this policy promises that the action runs at most once per key while the store is up. */
    public boolean promisesExactlyOnce() {
        return this != RUN;
    }
}
