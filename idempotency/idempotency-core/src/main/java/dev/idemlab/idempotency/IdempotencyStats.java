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
 * @param duplicateRisk actions that ran but whose record could not be written (the store failed on
 *     complete, or the coordinator failed open): a retry after the lease may run them again
 */
public record IdempotencyStats(Map<Outcome, Long> outcomes, Map<StorePhase, Long> storageErrors,
                               long stale, long resultsNotStored, long duplicateRisk) {

    public IdempotencyStats {
        outcomes = Collections.unmodifiableMap(new EnumMap<>(outcomes));
        storageErrors = Collections.unmodifiableMap(new EnumMap<>(storageErrors));
    }

    /** Stats without a duplicate-risk count, for coordinators that do not keep one. */
    public IdempotencyStats(Map<Outcome, Long> outcomes, Map<StorePhase, Long> storageErrors, long stale,
                            long resultsNotStored) {
        this(outcomes, storageErrors, stale, resultsNotStored, 0);
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
