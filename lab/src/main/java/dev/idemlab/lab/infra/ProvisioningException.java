package dev.idemlab.lab.infra;

/** No server could be had from any origin; the message says what was tried and how to get one. */
public final class ProvisioningException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ProvisioningException(String message, Throwable cause) {
        super(message, cause);
    }
}
