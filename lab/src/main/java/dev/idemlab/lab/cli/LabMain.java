package dev.idemlab.lab.cli;

/** The entry point of {@code lab.jar}. */
public final class LabMain {

    private LabMain() { }

    public static void main(String[] args) {
        System.exit(LabCommand.commandLine().execute(args));
    }
}
