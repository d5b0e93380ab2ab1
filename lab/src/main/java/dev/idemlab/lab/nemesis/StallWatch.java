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
 * topology, a circuit that will not close) is still caught. A second probe goes through the run's own
 * client, every 100 ms on a thread of its own: a call there also waits for the client's pool, which the
 * probe on its own client never does, and a pool whose every connection is busy fails the run's calls
 * after its wait (a second) with the server idle (found through HTTP on PostgreSQL: three clients'
 * callers queued by the thousand for sixteen connections on a loaded machine, and their fail-opens
 * looked like failures with no cause). Thread-safe.
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
    /** Probes through the run's own client (its pool), or {@code null} where the run has no other client. */
    private final Thread throughRunClient;
    private volatile boolean stopped;

    private StallWatch(IdempotencyStore probe, IdempotencyStore runClient, long runStart) {
        this.probe = probe;
        this.runStart = runStart;
        this.thread = new Thread(this::watch, "nemesis-stall-watch");
        this.thread.setDaemon(true);
        this.throughRunClient = probe == null ? null
                : new Thread(() -> probeThrough(runClient), "nemesis-stall-watch-run-client");
        if (throughRunClient != null) {
            throughRunClient.setDaemon(true);
        }
    }

    /**
     * Starts watching {@code store}'s server on a client of its own (none for a store no other client
     * reaches), stalls recorded on the run's clock, which started at {@code runStart} ({@link System#nanoTime()}).
     */
    static StallWatch start(IdempotencyStore store, long runStart) {
        IdempotencyStore probe = StoreEndpoint.sameAs(store)
                .map(endpoint -> endpoint.open(StoreEndpoint.prefixOf(store) + NAMESPACE + ":")).orElse(null);
        StallWatch watch = new StallWatch(probe, store, runStart);
        watch.thread.start();
        if (watch.throughRunClient != null) {
            watch.throughRunClient.start();
        }
        return watch;
    }

    /**
     * Probes {@code runClient}, the run's own client, every {@link #PERIOD}: a probe that took
     * {@link #THRESHOLD} or more, to answer or to fail (waiting for a pooled connection, or for the
     * server), is a stall the run's calls met too.
     */
    private void probeThrough(IdempotencyStore runClient) {
        while (!stopped) {
            long sentAt = System.nanoTime();
            try {
                runClient.lookup(NAMESPACE);
            } catch (RuntimeException failed) {
                // a failure that came fast is no stall; one that took a timeout is, below
            }
            long answeredAt = System.nanoTime();
            if (answeredAt - sentAt >= THRESHOLD) {
                record(sentAt, answeredAt);
            }
            try {
                TimeUnit.NANOSECONDS.sleep(PERIOD);
            } catch (InterruptedException e) {
                return;
            }
        }
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

    /** The stalls seen so far, in the order they were recorded; the watch goes on. */
    List<Stall> seen() {
        synchronized (stalls) {
            return List.copyOf(stalls);
        }
    }

    /** Stops watching; the stalls seen, in order. */
    List<Stall> stop() {
        stopped = true;
        thread.interrupt();
        if (throughRunClient != null) {
            throughRunClient.interrupt();
        }
        try {
            thread.join(TimeUnit.SECONDS.toMillis(30));
            if (throughRunClient != null) {
                throughRunClient.join(TimeUnit.SECONDS.toMillis(30));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (stalls) {
            List<Stall> seen = new java.util.ArrayList<>(stalls);
            seen.sort(java.util.Comparator.comparingLong(Stall::startedAt));
            return List.copyOf(seen);
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
