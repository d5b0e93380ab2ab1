package dev.idemlab.idempotency;

/** A configuration value breaks a rule; thrown by the builder, never later. */
public final class InvalidIdempotencyConfigException extends IdempotencyException {

    private static final long serialVersionUID = 1L;

    private final String setting;
    private final String rule;

    public InvalidIdempotencyConfigException(String setting, Object value, String rule) {
        super(null, null, "invalid idempotency setting " + setting + "=" + value + ": " + rule, null);
        this.setting = setting;
        this.rule = rule;
    }

    /** The setting that was refused. */
    public String setting() {
        return setting;
    }

    /** The rule it broke. */
    public String rule() {
        return rule;
    }

    @Override
    public int httpStatus() {
        return 500;
    }
}
