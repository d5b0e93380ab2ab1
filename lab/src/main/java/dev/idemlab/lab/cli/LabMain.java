package dev.idemlab.lab.cli;

/** The entry point of {@code lab.jar}. */
public final class LabMain {

    private LabMain() { }

    public static void main(String[] args) {
        // A run ended by Ctrl-C or SIGTERM says so. Java runs shutdown hooks in no order, so this line may
        // come while other hooks stop the run's servers and children; a run that ends by itself removes
        // the hook first and says nothing.
        Thread interrupted = new Thread(LabMain::sayInterrupted, "lab-interrupted");
        Runtime.getRuntime().addShutdownHook(interrupted);
        int exitCode = LabCommand.commandLine().execute(args);
        try {
            Runtime.getRuntime().removeShutdownHook(interrupted);
        } catch (IllegalStateException alreadyShuttingDown) {
            // The signal came as the command returned: the hook has said it.
        }
        System.exit(exitCode);
    }

    private static void sayInterrupted() {
        System.err.println("lab: interrupted: stopping the servers and child processes this run started");
        System.err.flush();
    }
}
