package dev.idemlab.provider;

/**
 * The root of everything the payment provider throws on purpose: a timeout, a refused key reuse,
 * a stale fence, or a failed exchange with a provider over HTTP. Each subclass carries the state
 * that caused it as fields, not only in its message.
 */
public abstract class ProviderException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    protected ProviderException(String message) {
        super(message);
    }

    protected ProviderException(String message, Throwable cause) {
        super(message, cause);
    }
}
