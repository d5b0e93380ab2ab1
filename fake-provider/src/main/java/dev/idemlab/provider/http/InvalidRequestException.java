package dev.idemlab.provider.http;

/**
 * A request broke a rule of the service's contract; the message states the rule. Never leaves
 * the service: it becomes a 400 problem.
 */
final class InvalidRequestException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    InvalidRequestException(String rule) {
        super(rule);
    }
}
