package dev.idemlab.lab.load;

import dev.idemlab.lab.infra.Signals;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Stalls the store's private server at a rhythm while a load runs: a stall starts every
 * {@code every} (the first one {@code every - length} into the run) with SIGSTOP to its pid, and
 * {@code length} later SIGCONT. A stall is not an outage: the server keeps its
 * connections and answers everything queued once it resumes. Bounded: it stalls only between
 * {@link #start()} and {@link #close()}, and {@link #close()} always leaves the server running.
 * Signals only the pid it is given, which must be a server the lab started. Thread-safe.
 */
final class StoreStalls implements AutoCloseable {

    private final long pid;
    private final Duration every;
    private final Duration length;
    private final AtomicInteger made = new AtomicInteger();
    private final Thread thread;
    private volatile boolean stopped;

    StoreStalls(long pid, Duration every, Duration length) {
        this.pid = pid;
        this.every = every;
        this.length = length;
        this.thread = new Thread(this::loop, "store-stalls-" + pid);
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** Stalls made so far (each a SIGSTOP that was followed by its SIGCONT). */
    int made() {
        return made.get();
    }

    private void loop() {
        try {
            while (!stopped) {
                // EVERY is the period: a stall starts every EVERY, so the pause between two is EVERY minus FOR.
                TimeUnit.NANOSECONDS.sleep(every.minus(length).toNanos());
                if (stopped) {
                    return;
                }
                Signals.send("STOP", pid);
                try {
                    TimeUnit.NANOSECONDS.sleep(length.toNanos());
                } finally {
                    Signals.send("CONT", pid);
                }
                made.incrementAndGet();
            }
        } catch (InterruptedException stop) {
            Thread.currentThread().interrupt();
        }
    }

    /** Ends the rhythm; the server is running when this returns. */
    @Override
    public void close() {
        stopped = true;
        thread.interrupt();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Signals.sendQuietly("CONT", pid);
    }
}
