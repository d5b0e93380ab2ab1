package dev.idemlab.lab.cli;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * How far a long run (check, load, scenario all) is, on standard error so that standard output stays
 * exactly the report. On a terminal one line is rewritten in place as steps start and finish; otherwise
 * (a pipe, a CI log) one line per finished step. Thread-safe.
 */
final class Progress {

    private final PrintWriter err;
    private final boolean terminal;
    private final int total;
    private int done;
    private long startedNanos;
    private boolean lineOpen;

    /**
     * @param err where progress goes
     * @param terminal whether {@code err} is watched by a person (a line rewritten in place) or not
     * @param total how many steps there will be
     */
    Progress(PrintWriter err, boolean terminal, int total) {
        this.err = err;
        this.terminal = terminal;
        this.total = total;
    }

    /** Whether this JVM's standard streams are a terminal (the best Java 17 can tell). */
    static boolean onTerminal() {
        return System.console() != null;
    }

    /** A step begins: on a terminal, the line says so. */
    synchronized void started(String step) {
        startedNanos = System.nanoTime();
        if (terminal) {
            err.print("\r\033[2Klab: [" + (done + 1) + "/" + total + "] " + step + " ...");
            err.flush();
            lineOpen = true;
        }
    }

    /** A step is over; {@code outcome} is its one word (done, PASS, FAIL, skipped). */
    synchronized void finished(String step, String outcome) {
        done++;
        String line = String.format(Locale.ROOT, "lab: [%d/%d] %s: %s (%.1f s)", done, total, step, outcome,
                (System.nanoTime() - startedNanos) / 1e9);
        if (terminal) {
            err.print("\r\033[2K" + line);
            lineOpen = true;
        } else {
            err.println(line);
        }
        err.flush();
    }

    /** A line of its own that is not a step (a store that could not be had). */
    synchronized void note(String line) {
        if (terminal && lineOpen) {
            err.print("\r\033[2K");
            lineOpen = false;
        }
        err.println("lab: " + line);
        err.flush();
    }

    /** Steps that will not run after all (their store could not be had). */
    synchronized void dropped(int steps) {
        done += steps;
    }

    /** The run is over: on a terminal, ends the rewritten line. */
    synchronized void close() {
        if (terminal && lineOpen) {
            err.println();
            err.flush();
            lineOpen = false;
        }
    }
}
