package dev.idemlab.idempotency.servlet.internal;

/** The {@code Idempotency-Key} field broke a rule of its syntax; the message states the rule. HTTP 400. */
public final class MalformedKeyException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    MalformedKeyException(String rule) {
        super(rule);
    }
}
