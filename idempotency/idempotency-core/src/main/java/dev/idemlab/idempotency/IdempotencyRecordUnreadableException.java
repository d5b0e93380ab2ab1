package dev.idemlab.idempotency;

/**
 * The store holds a record under the key that it cannot read: not JSON, an unknown schema version,
 * an unknown state, a value of the wrong type. Treating it as absent would run the action again for
 * a key that may already have charged, and treating it as an outage would fail open and do the same;
 * so the call is refused and the action does not run. Someone has to look at the record. HTTP 500.
 */
public final class IdempotencyRecordUnreadableException extends IdempotencyException {

    private static final long serialVersionUID = 1L;

    private final String store;
    private final String namespace;
    private final String reason;

    public IdempotencyRecordUnreadableException(String store, String namespace, String reason, Throwable cause) {
        super(operationOf(namespace), keyOf(namespace), store + " store holds a record it cannot read under '"
                + namespace + "': " + reason + "; the action was not run", cause);
        this.store = store;
        this.namespace = namespace;
        this.reason = reason;
    }

    /** The name of the store that holds the record. */
    public String store() {
        return store;
    }

    /** The record's namespace, {@code operation:key}. */
    public String namespace() {
        return namespace;
    }

    /** What is wrong with the record. */
    public String reason() {
        return reason;
    }

    @Override
    public int httpStatus() {
        return 500;
    }

    private static String operationOf(String namespace) {
        int colon = namespace == null ? -1 : namespace.indexOf(':');
        return colon < 0 ? null : namespace.substring(0, colon);
    }

    private static String keyOf(String namespace) {
        int colon = namespace == null ? -1 : namespace.indexOf(':');
        return colon < 0 ? null : namespace.substring(colon + 1);
    }
}
