package dev.idemlab.lab.cli;

import dev.idemlab.idempotency.InvalidIdempotencyConfigException;
import dev.idemlab.idempotency.InvalidIdempotencyKeyException;
import picocli.CommandLine;

import java.util.ArrayList;
import java.util.List;

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

    /**
     * A mistyped command line: the message, picocli's suggestions, which commands do take an option
     * given to the wrong one, and where help is. Exit 2.
     */
    static int handleParameterException(CommandLine.ParameterException e, String[] args) {
        CommandLine commandLine = e.getCommandLine();
        commandLine.getErr().println("lab: " + e.getMessage());
        CommandLine.UnmatchedArgumentException.printSuggestions(e, commandLine.getErr());
        if (e instanceof CommandLine.UnmatchedArgumentException unmatched) {
            for (String arg : unmatched.getUnmatched()) {
                String name = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
                List<String> owners = new ArrayList<>();
                if (name.startsWith("--")) {
                    commandsWithOption(commandLine.getCommandSpec().root(), name, owners);
                }
                if (!owners.isEmpty()) {
                    commandLine.getErr().println("lab: " + name + " is an option of " + String.join(" and ", owners)
                            + ", not of '" + commandLine.getCommandSpec().qualifiedName() + "'");
                }
            }
        }
        commandLine.getErr().println("Try '" + commandLine.getCommandSpec().qualifiedName() + " --help'.");
        return commandLine.getCommandSpec().exitCodeOnInvalidInput();
    }

    /** The commands under {@code spec} that take option {@code name}, by their full names. */
    private static void commandsWithOption(CommandLine.Model.CommandSpec spec, String name, List<String> owners) {
        CommandLine.Model.OptionSpec option = spec.findOption(name);
        if (option != null && !option.hidden()) {
            owners.add("'" + spec.qualifiedName() + "'");
        }
        for (CommandLine sub : spec.subcommands().values()) {
            // "help" lists every command as its own subcommand: follow real children only.
            if (sub.getCommandSpec().parent() == spec) {
                commandsWithOption(sub.getCommandSpec(), name, owners);
            }
        }
    }
}
