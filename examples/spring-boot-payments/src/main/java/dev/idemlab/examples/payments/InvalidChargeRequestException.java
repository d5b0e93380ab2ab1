package dev.idemlab.examples.payments;

/** A request the service refuses before anything runs (400): the message states the rule it broke. */
public final class InvalidChargeRequestException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String title;

    InvalidChargeRequestException(String title, String rule) {
        super(rule);
        this.title = title;
    }

    /** The problem's title: what is wrong, in a few words. */
    public String title() {
        return title;
    }
}
