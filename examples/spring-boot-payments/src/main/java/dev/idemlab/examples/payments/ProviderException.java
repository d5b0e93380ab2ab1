package dev.idemlab.examples.payments;

/**
 * The payment provider failed or could not be reached: the charge may not have been made, and the
 * request is answered 502 without storing anything, so that a retry runs again.
 */
public final class ProviderException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    ProviderException(String message, Throwable cause) {
        super(message, cause);
    }
}
