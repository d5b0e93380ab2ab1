package dev.idemlab.lab.load;

import org.HdrHistogram.Histogram;

/**
 * The latency percentiles of one run, in milliseconds, read from a merged HdrHistogram of
 * microseconds. Immutable and thread-safe.
 *
 * @param count how many latencies were recorded
 * @param p50 the median
 * @param p90 the 90th percentile
 * @param p99 the 99th percentile
 * @param p999 the 99.9th percentile
 * @param max the largest
 */
public record LatencySummary(long count, double p50, double p90, double p99, double p999, double max) {

    /** The summary of a histogram recorded in microseconds. */
    static LatencySummary of(Histogram micros) {
        return new LatencySummary(micros.getTotalCount(), ms(micros.getValueAtPercentile(50)),
                ms(micros.getValueAtPercentile(90)), ms(micros.getValueAtPercentile(99)),
                ms(micros.getValueAtPercentile(99.9)), ms(micros.getMaxValue()));
    }

    private static double ms(long micros) {
        return micros / 1000.0;
    }
}
