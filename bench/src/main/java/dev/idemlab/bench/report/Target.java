package dev.idemlab.bench.report;

import dev.idemlab.bench.StoreKind;

import java.util.List;
import java.util.Locale;

/**
 * A published performance target: reported as met or missed on the summary page, never asserted in a
 * test, since a shared machine's noise must not fail a build.
 *
 * @param store the store it is about
 * @param question the benchmark it reads
 * @param baseline the raw baseline method it compares with
 * @param kind a throughput ratio floor or an overhead ceiling
 * @param threshold the ratio (ours / raw throughput) or the overhead in µs per operation
 */
public record Target(StoreKind store, Question question, String baseline, Kind kind, double threshold) {

    /** How a target reads its comparison. */
    public enum Kind {
        /** Ours / raw throughput must be at least the threshold. */
        RATIO_AT_LEAST,
        /** Ours minus raw average time per operation must be at most the threshold, in µs. */
        OVERHEAD_BELOW_MICROS,
        /** The coordinator's allocation per operation must be at most the threshold, in bytes. */
        ALLOCATION_AT_MOST_BYTES
    }

    /**
     * The targets of the cost issue: each store against the protocol's own floor, the raw writes a first
     * call needs without the library (two on every store) and the one read a replay needs.
     */
    public static final List<Target> PUBLISHED = List.of(
            new Target(StoreKind.POSTGRES, Question.FIRST_CALL, "rawPlainWrite", Kind.RATIO_AT_LEAST, 0.8),
            new Target(StoreKind.POSTGRES, Question.REPLAY, "rawPlainRead", Kind.RATIO_AT_LEAST, 0.8),
            new Target(StoreKind.REDIS, Question.FIRST_CALL, "rawPlainWrite", Kind.RATIO_AT_LEAST, 0.85),
            new Target(StoreKind.REDIS, Question.REPLAY, "rawPlainRead", Kind.RATIO_AT_LEAST, 0.9),
            new Target(StoreKind.MEMORY, Question.FIRST_CALL, "rawReserve", Kind.OVERHEAD_BELOW_MICROS, 1.5),
            new Target(StoreKind.MEMORY, Question.FIRST_CALL, "rawReserve", Kind.ALLOCATION_AT_MOST_BYTES, 500),
            new Target(StoreKind.MEMORY, Question.REPLAY, "rawPlainRead", Kind.OVERHEAD_BELOW_MICROS, 1.0),
            new Target(StoreKind.REDIS, Question.REDISSON_FIRST_CALL, "redissonFirstCall", Kind.RATIO_AT_LEAST, 1.0),
            new Target(StoreKind.REDIS, Question.REDISSON_REPLAY, "redissonReplay", Kind.RATIO_AT_LEAST, 1.0));

    /**
     * Whether a figure at {@code threads} is judged on a machine with {@code cores}: with more threads
     * than cores, each timed operation also counts the time its thread waited for a core, so such
     * figures are reported and never judged.
     */
    public static boolean judgesAt(int threads, int cores) {
        return threads <= cores;
    }

    /** Whether {@code comparison} is the one this target reads (at any thread count). */
    public boolean reads(Comparison comparison) {
        return comparison.store() == store && comparison.question() == question
                && comparison.baseline().equals(baseline);
    }

    /** The figure this target judges: the ratio, or the overhead in µs. */
    public double value(Comparison comparison) {
        return switch (kind) {
            case RATIO_AT_LEAST -> comparison.ratio();
            case OVERHEAD_BELOW_MICROS -> comparison.overheadMicros();
            case ALLOCATION_AT_MOST_BYTES -> comparison.oursBytesPerOp();
        };
    }

    /**
     * The same figure from the SampleTime means, which the run measured minutes apart from the
     * throughput: NaN when the run has no such cross-check, and for allocation, which does not drift.
     */
    public double crossCheck(Comparison comparison) {
        return switch (kind) {
            case RATIO_AT_LEAST -> comparison.sampledRatio();
            case OVERHEAD_BELOW_MICROS -> comparison.sampledOverheadMicros();
            case ALLOCATION_AT_MOST_BYTES -> Double.NaN;
        };
    }

    /**
     * Whether {@code comparison} meets the target: its figure does, and so does the SampleTime
     * cross-check where the run has one, so that one mode's lucky minutes on a noisy machine never
     * read as met.
     */
    public boolean metBy(Comparison comparison) {
        double check = crossCheck(comparison);
        return meets(value(comparison)) && (Double.isNaN(check) || meets(check));
    }

    private boolean meets(double value) {
        return switch (kind) {
            case RATIO_AT_LEAST -> value >= threshold;
            case OVERHEAD_BELOW_MICROS, ALLOCATION_AT_MOST_BYTES -> value <= threshold;
        };
    }

    /** The rule in words, e.g. {@code redis replay >= 0.90x EVALSHA of a minimal reserve script}. */
    public String describe() {
        String subject = store.backendName() + " " + question.title();
        String against = Question.baselineLabel(baseline, store);
        return switch (kind) {
            case RATIO_AT_LEAST -> String.format(Locale.ROOT, "%s >= %.2fx the throughput of %s", subject, threshold,
                    against);
            case OVERHEAD_BELOW_MICROS -> String.format(Locale.ROOT, "%s overhead <= %.1f µs per operation over %s",
                    subject, threshold, against);
            case ALLOCATION_AT_MOST_BYTES -> String.format(Locale.ROOT, "%s allocates <= %.0f bytes per operation",
                    subject, threshold);
        };
    }
}
