package dev.idemlab.bench.report;

import java.util.Map;
import java.util.Objects;

/**
 * One result of a JMH JSON file, in units the summary page uses: throughput in operations per second
 * (all threads together), times in microseconds per operation.
 *
 * @param benchmark the benchmark class's simple name, e.g. {@code FirstCallBenchmark}
 * @param method the method, or the group of a {@code @Group} benchmark, e.g. {@code rawReserve}
 * @param mode JMH's short mode name: {@code thrpt} or {@code sample}
 * @param threads threads that ran it, all groups together
 * @param store the {@code store} parameter, or {@code null} for a benchmark without one
 * @param score ops/s for {@code thrpt}, mean µs/op for {@code sample}
 * @param percentiles µs/op by percentile ({@code 50.0}, {@code 99.0}, {@code 99.9}, ...); empty for {@code thrpt}
 * @param bytesPerOp bytes allocated per operation ({@code -prof gc}'s {@code gc.alloc.rate.norm}), or NaN
 */
public record JmhRecord(String benchmark, String method, String mode, int threads, String store, double score,
                        Map<String, Double> percentiles, double bytesPerOp) {

    /** A result without an allocation profile. */
    public JmhRecord(String benchmark, String method, String mode, int threads, String store, double score,
                     Map<String, Double> percentiles) {
        this(benchmark, method, mode, threads, store, score, percentiles, Double.NaN);
    }

    /** JMH's name of the throughput mode. */
    public static final String THROUGHPUT = "thrpt";
    /** JMH's name of the sample-time mode. */
    public static final String SAMPLE_TIME = "sample";

    public JmhRecord {
        Objects.requireNonNull(benchmark, "benchmark");
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(mode, "mode");
        percentiles = Map.copyOf(percentiles);
    }

    /** Whether this is the result of {@code benchmark.method} on {@code store} with {@code threads}. */
    public boolean is(String benchmark, String method, String store, int threads) {
        return this.benchmark.equals(benchmark) && this.method.equals(method)
                && Objects.equals(this.store, store) && this.threads == threads;
    }

    /** A percentile in µs/op, or NaN when this result has none. */
    public double percentile(String percentile) {
        return percentiles.getOrDefault(percentile, Double.NaN);
    }
}
