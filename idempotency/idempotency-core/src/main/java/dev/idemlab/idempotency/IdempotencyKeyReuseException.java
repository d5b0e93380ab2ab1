package dev.idemlab.idempotency;

/**
 * The key was already used for a different request: the stored fingerprint and this request's
 * fingerprint differ. Keys are for identical requests. HTTP 422.
 */
public final class IdempotencyKeyReuseException extends IdempotencyException {

    private static final long serialVersionUID = 1L;

    private final String storedFingerprint;
    private final String requestFingerprint;
    private final boolean inFlight;

    public IdempotencyKeyReuseException(String operation, String key, String storedFingerprint,
                                        String requestFingerprint, boolean inFlight) {
        super(operation, key, "idempotency key '" + key + "' of operation '" + operation
                + "' was already used for a different request" + (inFlight ? " that is still in flight" : "")
                + " (stored fingerprint " + abbreviate(storedFingerprint) + ", this request "
                + abbreviate(requestFingerprint) + ")", null);
        this.storedFingerprint = storedFingerprint;
        this.requestFingerprint = requestFingerprint;
        this.inFlight = inFlight;
    }

    private static String abbreviate(String fingerprint) {
        return fingerprint.length() > 12 ? fingerprint.substring(0, 12) + "..." : fingerprint;
    }

    /** The fingerprint of the request that first used the key. */
    public String storedFingerprint() {
        return storedFingerprint;
    }

    /** The fingerprint of the request that was refused. */
    public String requestFingerprint() {
        return requestFingerprint;
    }

    /** Whether the first request was still running when this one arrived. */
    public boolean inFlight() {
        return inFlight;
    }

    @Override
    public int httpStatus() {
        return 422;
    }
}
