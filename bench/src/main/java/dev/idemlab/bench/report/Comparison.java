package dev.idemlab.bench.report;

import dev.idemlab.bench.StoreKind;

/**
 * The coordinator's figure beside one raw baseline, both from the same run, store and thread count.
 *
 * @param store the store, or {@code null} for the fingerprint
 * @param question what was measured
 * @param threads threads that ran each side
 * @param baseline the baseline's method name, e.g. {@code rawReserve}
 * @param oursOpsPerSecond the coordinator's throughput, all threads together
 * @param rawOpsPerSecond the baseline's throughput, all threads together
 * @param oursBytesPerOp the coordinator's allocation per operation ({@code -prof gc}), or NaN when not profiled
 * @param rawBytesPerOp the baseline's allocation per operation, or NaN when not profiled
 * @param oursSampledOpsPerSecond the coordinator's throughput derived from its SampleTime mean, the
 *     cross-check, or NaN when the run has none
 * @param rawSampledOpsPerSecond the baseline's, likewise
 */
public record Comparison(StoreKind store, Question question, int threads, String baseline,
                         double oursOpsPerSecond, double rawOpsPerSecond, double oursBytesPerOp,
                         double rawBytesPerOp, double oursSampledOpsPerSecond, double rawSampledOpsPerSecond) {

    /** A comparison without a SampleTime cross-check. */
    public Comparison(StoreKind store, Question question, int threads, String baseline,
                      double oursOpsPerSecond, double rawOpsPerSecond, double oursBytesPerOp, double rawBytesPerOp) {
        this(store, question, threads, baseline, oursOpsPerSecond, rawOpsPerSecond, oursBytesPerOp, rawBytesPerOp,
                Double.NaN, Double.NaN);
    }

    /** A comparison without allocation figures. */
    public Comparison(StoreKind store, Question question, int threads, String baseline,
                      double oursOpsPerSecond, double rawOpsPerSecond) {
        this(store, question, threads, baseline, oursOpsPerSecond, rawOpsPerSecond, Double.NaN, Double.NaN);
    }

    /** Ours divided by raw throughput: 1.0 means the library costs nothing on top of the store. */
    public double ratio() {
        return oursOpsPerSecond / rawOpsPerSecond;
    }

    /** The coordinator's average time per operation, per thread, in µs. */
    public double oursMicrosPerOp() {
        return microsPerOp(oursOpsPerSecond);
    }

    /** The baseline's average time per operation, per thread, in µs. */
    public double rawMicrosPerOp() {
        return microsPerOp(rawOpsPerSecond);
    }

    /** What the coordinator adds to each operation: ours minus raw average time per operation, in µs. */
    public double overheadMicros() {
        return oursMicrosPerOp() - rawMicrosPerOp();
    }

    /** The ratio from the SampleTime means, the cross-check; NaN when the run has none. */
    public double sampledRatio() {
        return oursSampledOpsPerSecond / rawSampledOpsPerSecond;
    }

    /** The overhead from the SampleTime means, the cross-check, in µs; NaN when the run has none. */
    public double sampledOverheadMicros() {
        return microsPerOp(oursSampledOpsPerSecond) - microsPerOp(rawSampledOpsPerSecond);
    }

    /** What the baseline does, in words. */
    public String baselineLabel() {
        return Question.baselineLabel(baseline, store == null ? StoreKind.MEMORY : store);
    }

    private double microsPerOp(double opsPerSecond) {
        return threads * 1e6 / opsPerSecond;
    }
}
