package dev.idemlab.peers;

import java.time.Duration;
import java.util.Objects;

/**
 * How the experiments are timed. Immutable and thread-safe.
 *
 * @param latency how long the provider takes per charge (the post: 300 ms)
 * @param retryAt when the in-flight retry is sent, after the first call began (the post: 50 ms); the
 *                retry is never sent before the first call is inside the provider, so that the race
 *                is the post's whatever the machine's speed
 * @param callers how many callers the in-flight experiment sends: the first, then {@code callers - 1}
 *                retries that all arrive at {@code retryAt}
 * @param callDeadline how long a caller is awaited before its call is recorded as unanswered
 */
public record ExperimentOptions(Duration latency, Duration retryAt, int callers, Duration callDeadline) {

    public static final Duration DEFAULT_LATENCY = Duration.ofMillis(300);
    public static final Duration DEFAULT_RETRY_AT = Duration.ofMillis(50);
    public static final int DEFAULT_CALLERS = 2;
    public static final Duration DEFAULT_CALL_DEADLINE = Duration.ofSeconds(40);

    public ExperimentOptions {
        Objects.requireNonNull(latency, "latency");
        Objects.requireNonNull(retryAt, "retryAt");
        Objects.requireNonNull(callDeadline, "callDeadline");
        if (latency.isNegative() || retryAt.isNegative()) {
            throw new IllegalArgumentException("latency and retryAt must not be negative: " + latency + ", " + retryAt);
        }
        if (callers < 2 || callers > 64) {
            throw new IllegalArgumentException("callers must be 2..64: " + callers);
        }
        if (callDeadline.compareTo(latency) <= 0) {
            throw new IllegalArgumentException("callDeadline must exceed the latency: " + callDeadline);
        }
    }

    /** The post's timing: 300 ms charges, a retry at 50 ms, two callers. */
    public static ExperimentOptions defaults() {
        return new ExperimentOptions(DEFAULT_LATENCY, DEFAULT_RETRY_AT, DEFAULT_CALLERS, DEFAULT_CALL_DEADLINE);
    }

    public ExperimentOptions withLatency(Duration latency) {
        return new ExperimentOptions(latency, retryAt, callers, callDeadline);
    }

    public ExperimentOptions withRetryAt(Duration retryAt) {
        return new ExperimentOptions(latency, retryAt, callers, callDeadline);
    }

    public ExperimentOptions withCallers(int callers) {
        return new ExperimentOptions(latency, retryAt, callers, callDeadline);
    }
}
