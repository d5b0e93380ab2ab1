package dev.idemlab.lab.cli;

/** A request the lab cannot carry out as given; reported in one line with exit code 2. */
final class UsageException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    UsageException(String message) {
        super(message);
    }
}
