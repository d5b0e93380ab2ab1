package dev.idemlab.idempotency.spi;

import dev.idemlab.idempotency.IdempotencyException;

/**
 * A store could not do what it was asked: the server refused, timed out, or answered something
 * unreadable. Stores throw this; the coordinator turns it into a counted storage error and fails
 * open or closed as configured.
 */
public class IdempotencyStoreException extends IdempotencyException {

    private static final long serialVersionUID = 1L;

    private final String store;
    private final String namespace;

    public IdempotencyStoreException(String store, String namespace, String message, Throwable cause) {
        super(null, null, store + " store failed" + (namespace == null ? "" : " on '" + namespace + "'")
                + ": " + message, cause);
        this.store = store;
        this.namespace = namespace;
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
