package dev.idemlab.idempotency.internal;

import dev.idemlab.idempotency.IdempotencyStats;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.StorePhase;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * The coordinator's counters: one adder per outcome and per storage phase, read as a snapshot by
 * {@link #snapshot()}, and each count passed on to a {@link Sink} (Micrometer's meters, when a
 * registry was configured). Thread-safe.
 */
final class CoordinatorCounters {

    /** Where counts go besides the coordinator's own snapshot. */
    interface Sink {
        Sink NONE = new Sink() { };

        default void outcome(Outcome outcome) { }

        default void storageError(StorePhase phase) { }

        default void stale() { }

        default void resultNotStored() { }

        default void duplicateRisk() { }
    }

    private final Map<Outcome, LongAdder> outcomes = new EnumMap<>(Outcome.class);
    private final Map<StorePhase, LongAdder> storageErrors = new EnumMap<>(StorePhase.class);
    private final LongAdder stale = new LongAdder();
    private final LongAdder resultsNotStored = new LongAdder();
    private final LongAdder duplicateRisk = new LongAdder();
    private final Sink sink;

    CoordinatorCounters(Sink sink) {
        this.sink = sink;
        for (Outcome outcome : Outcome.values()) {
            outcomes.put(outcome, new LongAdder());
        }
        for (StorePhase phase : StorePhase.values()) {
            storageErrors.put(phase, new LongAdder());
        }
    }

    void outcome(Outcome outcome) {
        outcomes.get(outcome).increment();
        sink.outcome(outcome);
    }

    void storageError(StorePhase phase) {
        storageErrors.get(phase).increment();
        sink.storageError(phase);
    }

    void stale() {
        stale.increment();
        sink.stale();
    }

    void resultNotStored() {
        resultsNotStored.increment();
        sink.resultNotStored();
    }

    void duplicateRisk() {
        duplicateRisk.increment();
        sink.duplicateRisk();
    }

    IdempotencyStats snapshot() {
        Map<Outcome, Long> outcomeCounts = new EnumMap<>(Outcome.class);
        outcomes.forEach((outcome, adder) -> outcomeCounts.put(outcome, adder.sum()));
        Map<StorePhase, Long> errorCounts = new EnumMap<>(StorePhase.class);
        storageErrors.forEach((phase, adder) -> errorCounts.put(phase, adder.sum()));
        return new IdempotencyStats(outcomeCounts, errorCounts, stale.sum(), resultsNotStored.sum(),
                duplicateRisk.sum());
    }
}
