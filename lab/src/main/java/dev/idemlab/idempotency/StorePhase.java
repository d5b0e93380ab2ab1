package dev.idemlab.idempotency;

/** The store operation a storage error happened in. */
public enum StorePhase {
    /** Reserving the key (or, under {@link InFlightPolicy#RUN}, nothing: RUN never reserves). */
    RESERVE,
    /** Storing the result, including RUN's put-if-absent. */
    COMPLETE,
    /** Releasing the reservation after the action failed. */
    RELEASE,
    /** Reading the record: RUN's cache lookup, or a waiter polling for the outcome. */
    LOOKUP
}
