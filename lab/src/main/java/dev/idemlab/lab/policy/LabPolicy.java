package dev.idemlab.lab.policy;

import dev.idemlab.idempotency.InFlightPolicy;

/**
 * The three answers the lab compares to "an identical request is still running": the library's two
 * policies, and the post's broken baseline, which lives here in the lab and never in the library.
 */
public enum LabPolicy {

    /**
     * A result cache with first-writer-wins ({@link ResultCacheCoordinator}): the second caller finds
     * no result, runs the action too, and answers with whichever result was stored first. Responses
     * agree; the charge happens twice.
     */
    RUN(null),

    /** The library's {@link InFlightPolicy#WAIT}: the second caller waits for the first one's result. */
    WAIT(InFlightPolicy.WAIT),

    /** The library's {@link InFlightPolicy#RAISE}: the second caller is told to retry (HTTP 409). */
    RAISE(InFlightPolicy.RAISE);

    private final InFlightPolicy library;

    LabPolicy(InFlightPolicy library) {
        this.library = library;
    }

    /** Whether this policy promises that the action runs at most once per key while the store is up. */
    public boolean promisesExactlyOnce() {
        return library != null;
    }

    /**
     * The library's policy this one is.
     *
     * @throws IllegalStateException for {@link #RUN}, which the library does not offer
     */
    public InFlightPolicy library() {
        if (library == null) {
            throw new IllegalStateException("RUN is the lab's result cache, not a policy of the library");
        }
        return library;
    }
}
