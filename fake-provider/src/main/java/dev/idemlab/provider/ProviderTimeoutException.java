package dev.idemlab.provider;

/**
 * The provider did not answer in time. Thrown before anything was charged, so a retry is safe
 * and must charge exactly once.
 */
public final class ProviderTimeoutException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String orderId;

    public ProviderTimeoutException(String orderId) {
        super("provider timed out before charging order " + orderId);
        this.orderId = orderId;
    }

    /** The order whose charge timed out. */
    public String orderId() {
        return orderId;
    }
}
