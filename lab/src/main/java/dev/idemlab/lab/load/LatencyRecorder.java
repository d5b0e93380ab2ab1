package dev.idemlab.lab.load;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * Records request latencies into one HdrHistogram per recording thread (so recording takes no lock
 * and shares no cache line) and merges them when the run is over. The range is explicit, 1 us to
 * 2 minutes at 3 significant digits; a longer latency is recorded as the top of the range.
 *
 * <p>The load is closed-loop (a client sends its next request when the previous one answered), so
 * the latencies are service times and no coordinated-omission correction applies.
 *
 * <p>Thread-safe for {@link #record}; call {@link #merged()} only after every recording thread has
 * stopped (an executor's termination is enough to publish their counts).
 */
final class LatencyRecorder {

    static final long HIGHEST_MICROS = TimeUnit.MINUTES.toMicros(2);
    private static final int SIGNIFICANT_DIGITS = 3;

    private final List<Histogram> histograms = new CopyOnWriteArrayList<>();
    private final ThreadLocal<Histogram> own = ThreadLocal.withInitial(this::register);

    /** Records one request that took {@code nanos}. */
    void record(long nanos) {
        long micros = Math.max(1, Math.min(HIGHEST_MICROS, TimeUnit.NANOSECONDS.toMicros(nanos)));
        own.get().recordValue(micros);
    }

    /** Every thread's histogram added together. */
    Histogram merged() {
        Histogram merged = newHistogram();
        histograms.forEach(merged::add);
        return merged;
    }

    private Histogram register() {
        Histogram histogram = newHistogram();
        histograms.add(histogram);
        return histogram;
    }

    /** An empty histogram of this range and precision. */
    static Histogram newHistogram() {
        return new Histogram(1, HIGHEST_MICROS, SIGNIFICANT_DIGITS);
    }
}
