package dev.idemlab.lab.load;

/**
 * How a {@link KneeSearch} searches. Immutable and thread-safe. The command line checks every value
 * against its rule first; the checks here only guard programming errors.
 *
 * @param startRate the first rate tried, logical requests per second
 * @param maxRate the highest rate the ramp may try
 * @param p99BoundMs a step passes only with its p99 strictly under this many milliseconds
 * @param precision the bisection stops once the failing rate is within this fraction above the passing one
 * @param maxSteps runs at most this many steps (ramp and bisection together)
 */
public record KneeSettings(long startRate, long maxRate, double p99BoundMs, double precision, int maxSteps) {

    /** The bound: p99 under 50 ms. */
    public static final double DEFAULT_P99_BOUND_MS = 50;
    /** Knees within 10% of each other are one knee on a machine that is not quiet. */
    public static final double DEFAULT_PRECISION = 0.1;

    public KneeSettings {
        if (startRate < 1 || maxRate < startRate || !(p99BoundMs > 0) || !(precision > 0) || maxSteps < 1) {
            throw new IllegalArgumentException("invalid knee settings: start=" + startRate + ", max=" + maxRate
                    + ", p99 bound=" + p99BoundMs + ", precision=" + precision + ", steps=" + maxSteps);
        }
    }
}
