package dev.idemlab.lab.cli;

/** A command that could not finish what it was asked; reported in one line with exit code 1. */
final class CommandFailure extends RuntimeException {

    private static final long serialVersionUID = 1L;

    CommandFailure(String message) {
        super(message);
    }
}
