package dev.idemlab.idempotency.spi;

import dev.idemlab.idempotency.IdempotencyException;

/**
 * A store could not reach its server, or the server did not answer in time, or did not run the call:
 * a storage error. Stores throw this; the coordinator counts it and, unless it was a timeout or a
 * busy server that it can retry within its patience ({@link #isTransient()}), fails open or closed as
 * configured. A record the server returned but the store cannot
 * read is not a storage error: that is {@link dev.idemlab.idempotency.IdempotencyRecordUnreadableException}.
 */
public class IdempotencyStoreException extends IdempotencyException {

    private static final long serialVersionUID = 1L;

    /** What kind of failure it was, which decides whether waiting a little may help. */
    public enum Failure {
        /**
         * The server could not be reached, and the call was never sent: refused, rejected while the
         * client is disconnected. Retrying at once will not help. A connection lost while the call was
         * in flight is a {@link #TIMEOUT}: the call may have run.
         */
        UNREACHABLE,
        /**
         * The server did not answer in time (a stall, which may pass), or the connection was lost (reset,
         * closed) while the call was in flight, its answer with it. The call may have landed.
         */
        TIMEOUT,
        /** The store's circuit breaker is open after recent failures: failed without trying. */
        CIRCUIT_OPEN,
        /**
         * The server answered that it did not run the call and will shortly be able to: a Redis Cluster
         * slot in migration (TRYAGAIN, or ASK / MOVED past the client's redirects), a cluster electing a
         * new master (CLUSTERDOWN), a node still loading its data (LOADING), a demoted master (READONLY).
         * Not an outage, so it neither opens the circuit nor fails a call at once: the coordinator
         * retries it within its patience. Nothing was written, so the call has not landed.
         */
        BUSY,
        /** Anything else the server answered that was not a result. */
        OTHER
    }

    private final String store;
    private final String namespace;
    private final Failure failure;

    public IdempotencyStoreException(String store, String namespace, String message, Throwable cause) {
        this(store, namespace, Failure.OTHER, message, cause);
    }

    public IdempotencyStoreException(String store, String namespace, Failure failure, String message,
                                     Throwable cause) {
        super(null, null, store + " store failed" + (namespace == null ? "" : " on '" + namespace + "'")
                + ": " + message, cause);
        this.store = store;
        this.namespace = namespace;
        this.failure = java.util.Objects.requireNonNull(failure, "failure");
    }

    /** What kind of failure it was. */
    public Failure failure() {
        return failure;
    }

    /**
     * Whether trying again within a moment may succeed: a stall ({@link Failure#TIMEOUT}) or a server
     * that refused to run the call for now ({@link Failure#BUSY}). Every store operation is safe to
     * repeat, so the coordinator retries these within its patience.
     */
    public boolean isTransient() {
        return failure == Failure.TIMEOUT || failure == Failure.BUSY;
    }

    /**
     * Whether the call may have reached the server and landed although it failed: this failure was a
     * timeout (or another answer that was not a result), or it carries as suppressed an earlier try of
     * the same call that was. The coordinator attaches the first timed-out try to the last failure of
     * a call it retried, so that a retry refused by a dropped connection or a busy server does not hide
     * a first try that may have landed. A busy server ({@link Failure#BUSY}) did not run the call.
     */
    public boolean mayHaveLanded() {
        if (failure == Failure.TIMEOUT || failure == Failure.OTHER) {
            return true;
        }
        for (Throwable earlier : getSuppressed()) {
            if (earlier instanceof IdempotencyStoreException tried && tried.mayHaveLanded()) {
                return true;
            }
        }
        return false;
    }

    /** The name of the store that failed. */
    public String store() {
        return store;
    }

    /** The record's namespace ({@code operation:key}), or {@code null}. */
    public String namespace() {
        return namespace;
    }

    @Override
    public int httpStatus() {
        return 503;
    }
}
