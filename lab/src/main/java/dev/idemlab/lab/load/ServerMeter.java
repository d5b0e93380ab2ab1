package dev.idemlab.lab.load;

import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * How one HTTP server in a JVM of its own is measured for the filter comparison, whichever server it is
 * (the demo API three ways, a Spring Boot sample with its idempotency on or off): warmed up with first
 * calls on keys the run never draws, then with as long of the measured kind; its replay keys answered
 * once; then the load's closed-loop clients for the run's duration, with the server JVM's CPU time read
 * before and after. Not thread-safe: one measurement at a time.
 */
final class ServerMeter {

    private final LoadSettings settings;
    private final LoadProgress progress;

    /**
     * @param settings clients, provider latency and duration of each run
     * @param progress where a line per measured run goes
     */
    ServerMeter(LoadSettings settings, LoadProgress progress) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.progress = Objects.requireNonNull(progress, "progress");
    }

    /** First calls on keys the measured run never draws, for {@link FilterCost#WARM_UP} (no longer than a run). */
    void warmUpWithFirstCalls(URI uri) throws InterruptedException {
        run(uri, firstCalls(warmUp()));
    }

    /** As long of {@code kind} as the first calls' warm-up, when {@code kind} is not first calls. */
    void warmUpWith(URI uri, RequestKind kind) throws InterruptedException {
        if (kind != RequestKind.FIRST_CALL) {
            run(uri, measured(kind, warmUp()));
        }
    }

    /** Keys 0 to {@link FilterCost#PRIMED_KEYS} answered once, so that a replay run's requests are replays. */
    static void answerPrimedKeys(URI uri) {
        HttpTarget target = new HttpTarget(uri);
        ChargeHistory scratch = new ChargeHistory();
        for (int key = 0; key < FilterCost.PRIMED_KEYS; key++) {
            target.send(key, scratch);
        }
    }

    /**
     * The measured run: the load's clients for the run's duration, sending {@code kind}, the server's CPU
     * time read from process {@code pid} before and after; a line to the progress when done.
     */
    FilterCostRow.Measure measure(String label, URI uri, long pid, RequestKind kind, ChargeHistory history)
            throws InterruptedException {
        LatencyRecorder latencies = new LatencyRecorder();
        LoadSession session = new LoadSession(measured(kind, settings.duration()), new HttpTarget(uri), Duration.ZERO,
                history, latencies);
        Duration cpuBefore = cpuTime(pid);
        long start = System.nanoTime();
        session.run();
        long elapsed = System.nanoTime() - start;
        Duration cpu = cpuTime(pid).minus(cpuBefore);
        LatencySummary latency = LatencySummary.of(latencies.merged());
        double throughput = latency.count() * 1e9 / Math.max(1, elapsed);
        FilterCostRow.Measure measure = new FilterCostRow.Measure(throughput, latency, cpu);
        progress.finished(String.format(Locale.ROOT, "%s: %,d requests, %,.0f/s, p50 %.2f ms, p99 %.2f ms, "
                + "server CPU %.1f µs per request", label, latency.count(), throughput, latency.p50(), latency.p99(),
                measure.cpuMicrosPerRequest()));
        return measure;
    }

    /** The CPU time every thread of process {@code pid} has used so far, as the operating system counts it. */
    static Duration cpuTime(long pid) {
        return ProcessHandle.of(pid).flatMap(process -> process.info().totalCpuDuration())
                .orElseThrow(() -> new IllegalStateException("the CPU time of the server's JVM (pid " + pid
                        + ") cannot be read on this system"));
    }

    private Duration warmUp() {
        return FilterCost.WARM_UP.compareTo(settings.duration()) < 0 ? FilterCost.WARM_UP : settings.duration();
    }

    /** First calls draw from a billion keys; replays and conflicts from the primed ones. */
    private LoadSettings measured(RequestKind kind, Duration duration) {
        int keys = kind == RequestKind.FIRST_CALL ? LoadSettings.DEFAULT_KEYS : FilterCost.PRIMED_KEYS;
        return new LoadSettings(settings.clients(), 0, settings.providerLatency(), keys, duration, 0, settings.seed());
    }

    /**
     * First calls on keys the measured run never draws, for {@code duration}. A client's keys come from a
     * {@code SplittableRandom} seeded with the seed times its gamma plus the client, whose state then steps
     * by that same gamma: a nearby seed (the complement of 42 is 85 steps from 42) draws the measured run's
     * keys a few dozen requests later, and those come back replayed. Two to the fortieth steps apart, never.
     */
    private LoadSettings firstCalls(Duration duration) {
        return new LoadSettings(settings.clients(), 0, Duration.ZERO, LoadSettings.DEFAULT_KEYS, duration, 0,
                FilterCost.warmUpSeed(settings.seed()));
    }

    private static void run(URI uri, LoadSettings load) throws InterruptedException {
        new LoadSession(load, new HttpTarget(uri), Duration.ZERO, new ChargeHistory(), new LatencyRecorder()).run();
    }
}
