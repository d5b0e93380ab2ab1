package dev.idemlab.idempotency;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * An immutable snapshot of a coordinator's counters: calls per outcome, storage errors per phase,
 * stale holders and results not stored. Read it without a metrics server.
 *
 * @param outcomes calls per outcome; every outcome is present
 * @param storageErrors storage errors per phase; every phase is present
 * @param stale completes and releases refused because another attempt had taken the key over
 * @param resultsNotStored results returned to their caller but too large or not encodable to store
 */
public record IdempotencyStats(Map<Outcome, Long> outcomes, Map<StorePhase, Long> storageErrors,
                               long stale, long resultsNotStored) {

    public IdempotencyStats {
        outcomes = Collections.unmodifiableMap(new EnumMap<>(outcomes));
        storageErrors = Collections.unmodifiableMap(new EnumMap<>(storageErrors));
    }

    /** Calls that ended in {@code outcome}. */
    public long count(Outcome outcome) {
        return outcomes.getOrDefault(outcome, 0L);
    }

    /** Storage errors in every phase together. */
    public long totalStorageErrors() {
        return storageErrors.values().stream().mapToLong(Long::longValue).sum();
    }
}
