package dev.idemlab.lab.nemesis;

import java.time.Duration;
import java.util.Objects;

/**
 * One nemesis run's settings. Immutable and thread-safe.
 *
 * @param seed what the workload's and the faults' schedules are drawn from: the same seed, the same
 *     schedules (the threads' interleaving is the machine's)
 * @param duration how long requests keep arriving; the run ends once every call has answered
 * @param lease the coordinator's lease, short so that holders outlive it and waiters wait it out
 * @param downstreamKey whether the provider deduplicates on the key the action passes it
 * @param sabotage what is broken on purpose
 */
public record NemesisSettings(long seed, Duration duration, Duration lease, boolean downstreamKey, Sabotage sabotage) {

    /** The lease a nemesis run uses unless told otherwise. */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(3);

    public NemesisSettings {
        Objects.requireNonNull(duration, "duration");
        Objects.requireNonNull(lease, "lease");
        Objects.requireNonNull(sabotage, "sabotage");
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("a nemesis run needs a positive duration, got " + duration);
        }
    }

    /** These settings with the provider deduplicating on the key: the second pass of the same schedule. */
    public NemesisSettings withDownstreamKey() {
        return new NemesisSettings(seed, duration, lease, true, sabotage);
    }
}
