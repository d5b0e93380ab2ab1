package dev.idemlab.lab.infra;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
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

    /**
     * Waits until process {@code pid} is stopped (state {@code T} in {@code /proc}), at most
     * {@code patience}: SIGSTOP is queued when {@code kill} returns and acted on a moment later. Returns at
     * once where {@code /proc} does not say, or the process is gone.
     *
     * @return whether the process was seen stopped
     */
    public static boolean awaitStopped(long pid, Duration patience) {
        long deadline = System.nanoTime() + patience.toNanos();
        while (true) {
            Optional<String> state = ProcStat.field(pid, ProcStat.STATE);
            if (state.isEmpty()) {
                return false;
            }
            if (state.get().equals("T") || state.get().equals("t")) {
                return true;
            }
            if (System.nanoTime() > deadline) {
                return false;
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
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
