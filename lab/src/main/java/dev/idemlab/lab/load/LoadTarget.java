package dev.idemlab.lab.load;

/**
 * Where one request of the load goes: the coordinator in this JVM ({@link CoordinatorTarget}) or the
 * demo payment API over HTTP ({@link HttpTarget}). Implementations are thread-safe: every client
 * thread of a session sends through one target.
 */
interface LoadTarget {

    /**
     * Sends logical request {@code key} once and records its answer in {@code history}: the charge it
     * got, or a definite error. An answer that is neither is thrown, and counts as indeterminate.
     *
     * @throws RuntimeException for an answer the history cannot call definite; one whose
     *     {@link ErrorKind#of} is known is recorded by the caller as that kind
     */
    void send(int key, ChargeHistory history);
}
