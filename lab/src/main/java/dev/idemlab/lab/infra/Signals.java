package dev.idemlab.lab.infra;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * Sends a POSIX signal to one process by its pid, with {@code kill}: the JDK can only terminate a
 * process, not stop or continue it. The lab signals only processes it started itself.
 */
public final class Signals {

    private Signals() { }

    /**
     * @param signal {@code STOP}, {@code CONT}, {@code KILL}
     * @throws IllegalStateException if {@code kill} fails
     */
    public static void send(String signal, long pid) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).redirectErrorStream(true).start();
            String said = new String(kill.getInputStream().readAllBytes()).strip();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + pid + " failed: " + said);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run kill -" + signal + " " + pid + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while sending SIG" + signal + " to " + pid, e);
        }
    }

    /** As {@link #send}, for cleanups: a failure is ignored (the process may be gone already). */
    public static void sendQuietly(String signal, long pid) {
        try {
            send(signal, pid);
        } catch (IllegalStateException ignored) {
            // best effort in a finally block
        }
    }
}
