package dev.idemlab.lab.load;

import java.time.Duration;

/**
 * Faults and mitigations of a load run, beyond its shape: stalls of the store's server, the key
 * passed to a provider that deduplicates, and the coordinator's patience with a timed-out store
 * call. Immutable and thread-safe.
 *
 * @param stallEvery how often the store's server is stalled, or {@code null} for never
 * @param stallFor how long each stall lasts, or {@code null} for never
 * @param downstreamKey whether the provider deduplicates on the key the action passes it (the
 *     client's key, the same for every retry of a request)
 * @param storePatience the coordinator's store patience, or {@code null} for the library's default
 */
public record LoadFaults(Duration stallEvery, Duration stallFor, boolean downstreamKey, Duration storePatience) {

    /** No faults, no deduplication, the default patience: the plain load. */
    public static final LoadFaults NONE = new LoadFaults(null, null, false, null);

    public LoadFaults {
        if ((stallEvery == null) != (stallFor == null)) {
            throw new IllegalArgumentException("a stall needs both its rhythm and its length");
        }
    }

    /** Whether the store is stalled during the run. */
    public boolean stalls() {
        return stallEvery != null;
    }
}
