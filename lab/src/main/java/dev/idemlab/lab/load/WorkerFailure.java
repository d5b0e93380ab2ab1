package dev.idemlab.lab.load;

/**
 * A worker process of the HTTP load failed: it exited, exited non-zero, or went silent. Carries the
 * worker's number and pid; the message names both and the last line the worker wrote on its
 * standard error, if any.
 */
public final class WorkerFailure extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int worker;
    private final long pid;

    WorkerFailure(int worker, long pid, String what, String lastWords) {
        super("load worker " + worker + " (pid " + pid + ") " + what + (lastWords.isEmpty() ? "" : ": " + lastWords));
        this.worker = worker;
        this.pid = pid;
    }

    /** The worker's number, from 1. */
    public int worker() {
        return worker;
    }

    /** The worker's process id. */
    public long pid() {
        return pid;
    }
}
