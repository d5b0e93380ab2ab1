package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.IdempotencyStats;
import dev.idemlab.lab.infra.ServerInfo;
import dev.idemlab.provider.Charge;

import java.util.List;

/**
 * Everything a nemesis run recorded, and all the checker reads: every call (sent, answered, what it
 * got, its action), every fault as it happened, and the provider's ledger. Times are nanoseconds since
 * the run started. Immutable once built (its calls are no longer written to).
 *
 * @param settings the run's settings, seed included
 * @param server the store's server: name, version, origin
 * @param calls every call, in the order they were planned
 * @param faults every fault the nemesis injected, in order
 * @param ledger the provider's ledger after the run
 * @param elapsedNanos how long the run took, answers included
 * @param stats the coordinators' counters, added up: storage errors by phase, stale attempts, duplicate risk
 * @param stalls the stalls nobody injected that the run's {@link StallWatch} saw, in order
 */
public record NemesisHistory(NemesisSettings settings, ServerInfo server, List<CallRecord> calls,
                             List<FaultEvent> faults, List<Charge> ledger, long elapsedNanos, IdempotencyStats stats,
                             List<StallWatch.Stall> stalls) {

    public NemesisHistory {
        calls = List.copyOf(calls);
        faults = List.copyOf(faults);
        ledger = List.copyOf(ledger);
        stalls = List.copyOf(stalls);
    }

    /** A history in which no stall was observed. */
    public NemesisHistory(NemesisSettings settings, ServerInfo server, List<CallRecord> calls, List<FaultEvent> faults,
                          List<Charge> ledger, long elapsedNanos, IdempotencyStats stats) {
        this(settings, server, calls, faults, ledger, elapsedNanos, stats, List.of());
    }

    /** The counters of {@code coordinators}' stats added up. */
    static IdempotencyStats sum(java.util.Collection<IdempotencyStats> all) {
        java.util.Map<dev.idemlab.idempotency.Outcome, Long> outcomes = new java.util.EnumMap<>(dev.idemlab.idempotency.Outcome.class);
        java.util.Map<dev.idemlab.idempotency.StorePhase, Long> errors = new java.util.EnumMap<>(dev.idemlab.idempotency.StorePhase.class);
        long stale = 0;
        long notStored = 0;
        long risk = 0;
        for (IdempotencyStats stats : all) {
            stats.outcomes().forEach((outcome, count) -> outcomes.merge(outcome, count, Long::sum));
            stats.storageErrors().forEach((phase, count) -> errors.merge(phase, count, Long::sum));
            stale += stats.stale();
            notStored += stats.resultsNotStored();
            risk += stats.duplicateRisk();
        }
        return new IdempotencyStats(outcomes, errors, stale, notStored, risk);
    }
}
