package dev.idemlab.provider;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * How long a charge takes. The default is a fixed sleep; tests substitute a gate they open
 * themselves, so that a race is staged by latches instead of by timing.
 */
@FunctionalInterface
public interface Latency {

    /**
     * Blocks for the duration of one charge.
     *
     * @param callNumber 1 for the provider's first call, 2 for its second, ...
     * @throws InterruptedException if the charging thread is interrupted
     */
    void await(int callNumber) throws InterruptedException;

    /** A fixed latency; {@link Duration#ZERO} charges at once. */
    static Latency fixed(Duration duration) {
        if (duration.isNegative()) {
            throw new IllegalArgumentException("latency must not be negative: " + duration);
        }
        long nanos = duration.toNanos();
        return callNumber -> {
            if (nanos > 0) {
                TimeUnit.NANOSECONDS.sleep(nanos);
            }
        };
    }
}
