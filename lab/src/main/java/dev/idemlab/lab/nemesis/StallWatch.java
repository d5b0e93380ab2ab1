package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.lab.scenario.StoreEndpoint;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Watches, beside the run, for the stalls nobody injected: a probe of the store every 100 ms on a
 * client of its own (a lookup of a namespace no call uses) that took 300 ms or more to answer or to
 * fail, and a probe thread that woke 300 ms or more late (the machine itself stalled: every core busy,
 * a long collection). On a crowded machine a store call can time out with no fault on, and the
 * coordinator then fails open as it was told to; the checker counts such a stall as a store fault, and
 * only where this watch saw one, so that a store that fails fast for no reason (a client that lost its
 * topology, a circuit that will not close) is still caught. Thread-safe.
 */
final class StallWatch implements AutoCloseable {

    /** How long a probe may take, or a wake-up come late, before it counts as a stall. */
    static final long THRESHOLD = TimeUnit.MILLISECONDS.toNanos(300);
    private static final long PERIOD = TimeUnit.MILLISECONDS.toNanos(100);
    private static final String NAMESPACE = "stall-watch";

    private final IdempotencyStore probe;
    /** The run's clock starts here: stalls are recorded, as calls and faults are, in nanoseconds since. */
    private final long runStart;
    private final List<Stall> stalls = new ArrayList<>();
    private final Thread thread;
    private volatile boolean stopped;

    private StallWatch(IdempotencyStore probe, long runStart) {
        this.probe = probe;
        this.runStart = runStart;
        this.thread = new Thread(this::watch, "nemesis-stall-watch");
        this.thread.setDaemon(true);
    }

    /**
     * Starts watching {@code store}'s server on a client of its own (none for a store no other client
     * reaches), stalls recorded on the run's clock, which started at {@code runStart} ({@link System#nanoTime()}).
     */
    static StallWatch start(IdempotencyStore store, long runStart) {
        IdempotencyStore probe = StoreEndpoint.sameAs(store)
                .map(endpoint -> endpoint.open(StoreEndpoint.prefixOf(store) + NAMESPACE + ":")).orElse(null);
        StallWatch watch = new StallWatch(probe, runStart);
        watch.thread.start();
        return watch;
    }

    private void watch() {
        if (probe != null) {
            try {
                probe.lookup(NAMESPACE); // its connection opened, off the record
            } catch (RuntimeException failed) {
                // the loop below meets it again
            }
        }
        long wokeAt = System.nanoTime();
        while (!stopped) {
            long sentAt = System.nanoTime();
            if (sentAt - wokeAt >= PERIOD + THRESHOLD) {
                record(wokeAt + PERIOD, sentAt);
            }
            if (probe != null) {
                try {
                    probe.lookup(NAMESPACE);
                } catch (RuntimeException failed) {
                    // a failure that came fast is no stall; one that took a timeout is, below
                }
                long answeredAt = System.nanoTime();
                if (answeredAt - sentAt >= THRESHOLD) {
                    record(sentAt, answeredAt);
                }
            }
            wokeAt = System.nanoTime();
            try {
                TimeUnit.NANOSECONDS.sleep(PERIOD);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Records a stall from {@code from} to {@code to} ({@link System#nanoTime()}), on the run's clock. */
    void record(long from, long to) {
        synchronized (stalls) {
            stalls.add(new Stall(from - runStart, to - runStart));
        }
    }

    /** Stops watching; the stalls seen, in order. */
    List<Stall> stop() {
        stopped = true;
        thread.interrupt();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (stalls) {
            return List.copyOf(stalls);
        }
    }

    /** Stops watching, if {@link #stop} has not, and closes the probe's client. */
    @Override
    public void close() {
        if (!stopped) {
            stop();
        }
        if (probe != null) {
            probe.close();
        }
    }

    /** A stretch in which the store, or the machine, did not answer (nanoseconds of the run's clock). */
    record Stall(long startedAt, long endedAt) {

        long nanos() {
            return endedAt - startedAt;
        }
    }
}
