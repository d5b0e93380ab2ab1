package dev.idemlab.lab.load;

import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * One row of the HTTP filter comparison: one store, one kind of request, through the filter and the
 * same requests to the same handler without it. Immutable and thread-safe.
 *
 * @param store the store's name
 * @param kind the kind of request the filtered run sent
 * @param filtered the run through the filter
 * @param unfiltered the same requests without the filter: every one runs the handler
 * @param answeredAsKind how many filtered requests were answered as their kind (executed, replayed, 409)
 * @param answers what the filtered requests got, by kind of answer, for a row that is not clean
 */
public record FilterCostRow(String store, RequestKind kind, Measure filtered, Measure unfiltered,
                            long answeredAsKind, String answers) {

    /** The least ratio to unfiltered each kind must keep on Redis (issue #25); other rows are reported. */
    public static final Map<RequestKind, Double> REDIS_TARGETS = Map.of(RequestKind.FIRST_CALL, 0.6,
            RequestKind.REPLAY, 0.8);

    /**
     * One closed-loop run over HTTP.
     *
     * @param throughput answers per second
     * @param latency latency percentiles of every request
     */
    public record Measure(double throughput, LatencySummary latency) {

        public Measure {
            Objects.requireNonNull(latency, "latency");
        }
    }

    public FilterCostRow {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(filtered, "filtered");
        Objects.requireNonNull(unfiltered, "unfiltered");
        Objects.requireNonNull(answers, "answers");
    }

    /** Filtered throughput over unfiltered. */
    public double ratio() {
        return unfiltered.throughput() == 0 ? 0 : filtered.throughput() / unfiltered.throughput();
    }

    /** The target ratio of this row, if it has one. */
    public OptionalDouble target() {
        Double target = store.equals("redis") ? REDIS_TARGETS.get(kind) : null;
        return target == null ? OptionalDouble.empty() : OptionalDouble.of(target);
    }

    /**
     * Whether the row measured its kind: at least 99% of the filtered requests answered as that kind. A
     * first call can come back replayed when the filter saw its key twice (a request the client's
     * transport sent again); a handful of those change no figure, a row of them would.
     */
    public boolean clean() {
        return answeredAsKind * 100 >= filtered.latency().count() * 99;
    }

    /** {@code met}, {@code missed}, {@code reported} without a target, {@code not clean} when it measured another kind. */
    public String verdict() {
        if (!clean()) {
            return "not clean: " + answeredAsKind + " of " + filtered.latency().count() + " answered as "
                    + kind.label();
        }
        if (target().isEmpty()) {
            return "reported";
        }
        return ratio() >= target().getAsDouble() ? "met" : "missed";
    }
}
