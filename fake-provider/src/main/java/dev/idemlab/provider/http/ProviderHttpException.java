package dev.idemlab.provider.http;

import dev.idemlab.provider.ProviderException;

import java.net.URI;

/**
 * An exchange with a provider over HTTP failed in a way the in-process provider has no exception
 * for: the service could not be reached, answered with an unexpected status, or answered
 * something unreadable. Whether a charge in flight was made is unknown; the ledger says.
 */
public final class ProviderHttpException extends ProviderException {

    private static final long serialVersionUID = 1L;

    /** The {@link #status()} when no answer came. */
    public static final int NO_STATUS = -1;

    private final String method;
    private final URI uri;
    private final int status;

    /**
     * @param method the request's method
     * @param uri the request's address
     * @param status the answer's status, or {@link #NO_STATUS}
     * @param detail what went wrong
     * @param cause the underlying failure, or {@code null}
     */
    public ProviderHttpException(String method, URI uri, int status, String detail, Throwable cause) {
        super(method + " " + uri + (status == NO_STATUS ? "" : " answered " + status) + ": " + detail, cause);
        this.method = method;
        this.uri = uri;
        this.status = status;
    }

    /** The request's method. */
    public String method() {
        return method;
    }

    /** The request's address. */
    public URI uri() {
        return uri;
    }

    /** The answer's status, or {@link #NO_STATUS} when no answer came. */
    public int status() {
        return status;
    }
}
