package dev.idemlab.idempotency;

/** The store operation a storage error happened in. */
public enum StorePhase {
    /** Reserving the key. */
    RESERVE,
    /** Storing the result. */
    COMPLETE,
    /** Releasing the reservation after the action failed. */
    RELEASE,
    /** Reading the record: a waiter polling for the outcome. */
    LOOKUP
}
