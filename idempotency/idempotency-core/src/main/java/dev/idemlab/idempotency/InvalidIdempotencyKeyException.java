package dev.idemlab.idempotency;

/** The key breaks a rule: 1 to 255 Unicode code points, valid Unicode, not blank, no control characters. HTTP 400. */
public final class InvalidIdempotencyKeyException extends IdempotencyException {

    private static final long serialVersionUID = 1L;

    private final String rule;

    public InvalidIdempotencyKeyException(String operation, String key, String rule) {
        super(operation, key, "invalid idempotency key for operation '" + operation + "': " + rule, null);
        this.rule = rule;
    }

    /** The rule the key broke. */
    public String rule() {
        return rule;
    }

    @Override
    public int httpStatus() {
        return 400;
    }
}
