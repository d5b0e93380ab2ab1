package dev.idemlab.lab.cli;

import dev.idemlab.idempotency.InvalidIdempotencyConfigException;
import dev.idemlab.idempotency.InvalidIdempotencyKeyException;
import picocli.CommandLine;

/**
 * Turns a failure inside a command into one line and an exit code, never a stack trace: a setting
 * the library refuses is a usage error (2); a server that cannot be had, or anything else, is 1.
 */
final class FailureHandler implements CommandLine.IExecutionExceptionHandler {

    @Override
    public int handleExecutionException(Exception e, CommandLine commandLine, CommandLine.ParseResult parseResult) {
        boolean usage = e instanceof InvalidIdempotencyConfigException || e instanceof InvalidIdempotencyKeyException
                || e instanceof UsageException;
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        commandLine.getErr().println("lab: " + (usage ? "" : "error: ") + message);
        if (usage) {
            commandLine.getErr().println("Try '" + commandLine.getCommandSpec().qualifiedName() + " --help'.");
            return 2;
        }
        return 1;
    }

    /** A mistyped command line: the message, picocli's suggestions, and where help is. Exit 2. */
    static int handleParameterException(CommandLine.ParameterException e, String[] args) {
        CommandLine commandLine = e.getCommandLine();
        commandLine.getErr().println("lab: " + e.getMessage());
        CommandLine.UnmatchedArgumentException.printSuggestions(e, commandLine.getErr());
        commandLine.getErr().println("Try '" + commandLine.getCommandSpec().qualifiedName() + " --help'.");
        return commandLine.getCommandSpec().exitCodeOnInvalidInput();
    }
}
