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
 * @param localEffects whether each request places an order in the store's own PostgreSQL through a
 *     workflow of local effects ({@link OrderBook}) rather than only charging; such a run is used as the
 *     library advises local effects to be: every caller fails closed, and the provider deduplicates on
 *     each remote step's key
 */
public record NemesisSettings(long seed, Duration duration, Duration lease, boolean downstreamKey, Sabotage sabotage,
                              boolean localEffects) {

    /** The lease a nemesis run uses unless told otherwise. */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(3);

    public NemesisSettings {
        if (localEffects && !downstreamKey) {
            throw new IllegalArgumentException("local effects charge through a workflow's remote step, whose key the "
                    + "provider must deduplicate on: downstreamKey must be on");
        }
        Objects.requireNonNull(duration, "duration");
        Objects.requireNonNull(lease, "lease");
        Objects.requireNonNull(sabotage, "sabotage");
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("a nemesis run needs a positive duration, got " + duration);
        }
    }

    /** Settings for calls that only charge. */
    public NemesisSettings(long seed, Duration duration, Duration lease, boolean downstreamKey, Sabotage sabotage) {
        this(seed, duration, lease, downstreamKey, sabotage, false);
    }

    /** These settings with the provider deduplicating on the key: the second pass of the same schedule. */
    public NemesisSettings withDownstreamKey() {
        return new NemesisSettings(seed, duration, lease, true, sabotage, localEffects);
    }
}
