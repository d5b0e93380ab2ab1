package dev.idemlab.idempotency;

/** The store operation a storage error happened in. */
public enum StorePhase {
    /** Reserving the key. */
    RESERVE,
    /** Storing the result. */
    COMPLETE,
    /** Renewing the lease while the action runs (the heartbeat). */
    RENEW,
    /** Releasing the reservation after the action failed. */
    RELEASE,
    /** Reading the record: a waiter polling for the outcome. */
    LOOKUP
}
