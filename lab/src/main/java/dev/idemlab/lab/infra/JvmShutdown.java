package dev.idemlab.lab.infra;

/**
 * Whether this JVM is exiting: a run ended by Ctrl-C or SIGTERM has its servers stopped by shutdown
 * hooks while its clients are still sending, and what those clients then meet (a refused connection,
 * a closed pool) is the exit, not a finding to warn about.
 */
public final class JvmShutdown {

    private static final Thread PROBE = new Thread(() -> { }, "lab-shutdown-probe");

    private JvmShutdown() { }

    /** {@code true} once the JVM has begun to run its shutdown hooks. */
    public static boolean inProgress() {
        try {
            // The JDK's own answer: hooks can no longer be added once shutdown has begun.
            Runtime.getRuntime().addShutdownHook(PROBE);
            Runtime.getRuntime().removeShutdownHook(PROBE);
            return false;
        } catch (IllegalStateException shuttingDown) {
            return true;
        } catch (IllegalArgumentException alreadyAdded) {
            return false; // another thread is probing right now, so shutdown had not begun
        }
    }
}
