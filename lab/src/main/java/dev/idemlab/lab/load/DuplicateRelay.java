package dev.idemlab.lab.load;

/**
 * Where a worker process's concurrent duplicates go: to another worker, through the parent, so that
 * the same key arrives from two processes while the first request is in flight. Thread-safe: every
 * client thread of a session hands off through one relay.
 */
interface DuplicateRelay {

    /** Hands the duplicate of logical request {@code key} to another worker, to be sent after {@code delayNanos}. */
    void handOff(int key, long delayNanos);

    /**
     * Returns once no more duplicates will be handed to this worker: every worker's clients are done.
     *
     * @throws InterruptedException if interrupted while waiting
     */
    void awaitLastDuplicate() throws InterruptedException;
}
