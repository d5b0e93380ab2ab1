package dev.idemlab.peers;

import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link PeerLoad} run is shaped. Immutable and thread-safe.
 *
 * @param callers identical callers released together on one key per repetition
 * @param repetitions how many keys, one after the other
 * @param latency the provider's latency per charge
 * @param budget the run stops starting repetitions once this much time has passed
 */
public record LoadOptions(int callers, int repetitions, Duration latency, Duration budget) {

    public static final int DEFAULT_CALLERS = 8;
    public static final int DEFAULT_REPETITIONS = 50;
    public static final Duration DEFAULT_LATENCY = Duration.ofMillis(10);
    public static final Duration DEFAULT_BUDGET = Duration.ofSeconds(60);

    public LoadOptions {
        Objects.requireNonNull(latency, "latency");
        Objects.requireNonNull(budget, "budget");
        if (callers < 2 || callers > 64) {
            throw new IllegalArgumentException("callers must be 2..64: " + callers);
        }
        if (repetitions < 1 || repetitions > 100_000) {
            throw new IllegalArgumentException("repetitions must be 1..100000: " + repetitions);
        }
        if (latency.isNegative() || budget.isNegative() || budget.isZero()) {
            throw new IllegalArgumentException("latency must not be negative and budget must be positive");
        }
    }

    /** Eight callers, fifty keys, 10 ms charges, at most a minute. */
    public static LoadOptions defaults() {
        return new LoadOptions(DEFAULT_CALLERS, DEFAULT_REPETITIONS, DEFAULT_LATENCY, DEFAULT_BUDGET);
    }
}
