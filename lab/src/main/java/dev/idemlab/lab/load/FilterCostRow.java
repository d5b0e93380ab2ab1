package dev.idemlab.lab.load;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * One row of the HTTP filter comparison: one store, one kind of request, through the filter, with the
 * store's raw writes by hand (the floor), and bare. Immutable and thread-safe.
 *
 * <p>The targets (issue #43): on Redis and PostgreSQL the filtered throughput at least 0.85x the
 * raw-writes handler's for first calls and 0.9x for replays, where both pay the same store round
 * trips; on memory, where no round trip is paid, the filter's server CPU per request at most 50 µs
 * over the bare handler's for first calls and replays. In-flight conflicts are reported.
 *
 * @param store the store's name
 * @param kind the kind of request every run sent
 * @param filtered the run through the filter
 * @param rawWrites the run with the store's raw writes by hand around the charge
 * @param bare the same requests to the handler alone: every one charges
 * @param answeredAsKind how many filtered requests were answered as their kind (executed, replayed, 409)
 * @param answers what the filtered requests got, by kind of answer
 * @param rawAnsweredAsKind how many raw-writes requests were answered as their kind
 * @param rawAnswers what the raw-writes requests got, by kind of answer
 */
public record FilterCostRow(String store, RequestKind kind, Measure filtered, Measure rawWrites, Measure bare,
                            long answeredAsKind, String answers, long rawAnsweredAsKind, String rawAnswers) {

    /** The least ratio of filtered to raw-writes throughput each kind must keep on Redis and PostgreSQL. */
    public static final Map<RequestKind, Double> RATIO_TARGETS = Map.of(RequestKind.FIRST_CALL, 0.85,
            RequestKind.REPLAY, 0.9);
    /** The most server CPU per request the filter may add to the bare handler on memory, in microseconds. */
    public static final double MEMORY_CPU_TARGET_MICROS = 50;

    /**
     * One closed-loop run over HTTP against one server JVM.
     *
     * @param throughput answers per second
     * @param latency latency percentiles of every request
     * @param serverCpu CPU time the server's JVM used during the run, every thread (JIT and GC too)
     */
    public record Measure(double throughput, LatencySummary latency, Duration serverCpu) {

        public Measure {
            Objects.requireNonNull(latency, "latency");
            Objects.requireNonNull(serverCpu, "serverCpu");
        }

        /** The server's CPU time per answered request, in microseconds. */
        public double cpuMicrosPerRequest() {
            return latency.count() == 0 ? 0 : serverCpu.toNanos() / 1e3 / latency.count();
        }
    }

    public FilterCostRow {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(filtered, "filtered");
        Objects.requireNonNull(rawWrites, "rawWrites");
        Objects.requireNonNull(bare, "bare");
        Objects.requireNonNull(answers, "answers");
        Objects.requireNonNull(rawAnswers, "rawAnswers");
    }

    /** Filtered throughput over raw-writes throughput. */
    public double ratioToRaw() {
        return rawWrites.throughput() == 0 ? 0 : filtered.throughput() / rawWrites.throughput();
    }

    /** The server CPU per request the filter adds to the bare handler, in microseconds. */
    public double cpuOverBareMicros() {
        return filtered.cpuMicrosPerRequest() - bare.cpuMicrosPerRequest();
    }

    /** The least ratio to raw-writes of this row, if it has one (Redis and PostgreSQL, first calls and replays). */
    public OptionalDouble ratioTarget() {
        Double target = store.equals("memory") ? null : RATIO_TARGETS.get(kind);
        return target == null ? OptionalDouble.empty() : OptionalDouble.of(target);
    }

    /** Whether the row is judged by CPU over bare: memory, first calls and replays. */
    public boolean cpuTargeted() {
        return store.equals("memory") && RATIO_TARGETS.containsKey(kind);
    }

    /** The target as the page writes it. */
    public String target() {
        if (ratioTarget().isPresent()) {
            return String.format(Locale.ROOT, ">= %.2fx raw", ratioTarget().getAsDouble());
        }
        return cpuTargeted() ? String.format(Locale.ROOT, "<= +%.0f µs CPU over bare", MEMORY_CPU_TARGET_MICROS)
                : "none";
    }

    /**
     * Whether the row measured its kind: at least 99% of the filtered and of the raw-writes requests
     * answered as that kind. A first call can come back replayed when its key was seen twice (a request
     * the client's transport sent again); a handful of those change no figure, a row of them would.
     */
    public boolean clean() {
        return answeredAsKind * 100 >= filtered.latency().count() * 99
                && rawAnsweredAsKind * 100 >= rawWrites.latency().count() * 99;
    }

    /** {@code met}, {@code missed}, {@code reported} without a target, {@code not clean} when it measured another kind. */
    public String verdict() {
        if (!clean()) {
            return "not clean: " + answeredAsKind + " of " + filtered.latency().count() + " filtered and "
                    + rawAnsweredAsKind + " of " + rawWrites.latency().count() + " raw-writes answered as " + kind.label();
        }
        if (ratioTarget().isPresent()) {
            return ratioToRaw() >= ratioTarget().getAsDouble() ? "met" : "missed";
        }
        if (cpuTargeted()) {
            return cpuOverBareMicros() <= MEMORY_CPU_TARGET_MICROS ? "met" : "missed";
        }
        return "reported";
    }
}
