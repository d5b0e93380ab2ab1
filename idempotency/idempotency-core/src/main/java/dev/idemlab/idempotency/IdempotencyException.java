package dev.idemlab.idempotency;

/**
 * The root of every exception the coordinator and its stores throw. All are unchecked; each
 * carries what caused it as fields, and the HTTP status an API layer should map it to.
 */
public abstract class IdempotencyException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String operation;
    private final String key;

    protected IdempotencyException(String operation, String key, String message, Throwable cause) {
        super(message, cause);
        this.operation = operation;
        this.key = key;
    }

    /** The operation of the call that failed, or {@code null} where there was none. */
    public String operation() {
        return operation;
    }

    /** The idempotency key of the call that failed, or {@code null} where there was none. */
    public String key() {
        return key;
    }

    /** The HTTP status an API layer should answer with. */
    public abstract int httpStatus();
}
