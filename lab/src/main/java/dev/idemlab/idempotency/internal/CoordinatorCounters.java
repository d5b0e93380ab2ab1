package dev.idemlab.idempotency.internal;

import dev.idemlab.idempotency.IdempotencyStats;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.StorePhase;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * The coordinator's counters: one adder per outcome and per storage phase. Micrometer, when
 * configured, reads them through function counters, so nothing is counted twice. Thread-safe.
 */
final class CoordinatorCounters {

    private final Map<Outcome, LongAdder> outcomes = new EnumMap<>(Outcome.class);
    private final Map<StorePhase, LongAdder> storageErrors = new EnumMap<>(StorePhase.class);
    private final LongAdder stale = new LongAdder();
    private final LongAdder resultsNotStored = new LongAdder();

    CoordinatorCounters() {
        for (Outcome outcome : Outcome.values()) {
            outcomes.put(outcome, new LongAdder());
        }
        for (StorePhase phase : StorePhase.values()) {
            storageErrors.put(phase, new LongAdder());
        }
    }

    void outcome(Outcome outcome) {
        outcomes.get(outcome).increment();
    }

    void storageError(StorePhase phase) {
        storageErrors.get(phase).increment();
    }

    void stale() {
        stale.increment();
    }

    void resultNotStored() {
        resultsNotStored.increment();
    }

    IdempotencyStats snapshot() {
        Map<Outcome, Long> outcomeCounts = new EnumMap<>(Outcome.class);
        outcomes.forEach((outcome, adder) -> outcomeCounts.put(outcome, adder.sum()));
        Map<StorePhase, Long> errorCounts = new EnumMap<>(StorePhase.class);
        storageErrors.forEach((phase, adder) -> errorCounts.put(phase, adder.sum()));
        return new IdempotencyStats(outcomeCounts, errorCounts, stale.sum(), resultsNotStored.sum());
    }

    /** Registers the counters; tags carry the store and the outcome or phase, never a key. */
    void bindTo(MeterRegistry registry, String store) {
        outcomes.forEach((outcome, adder) -> FunctionCounter.builder("idempotency.calls", adder, LongAdder::sum)
                .description("Calls through the idempotency coordinator, by outcome")
                .tag("store", store).tag("outcome", tag(outcome))
                .register(registry));
        storageErrors.forEach((phase, adder) -> FunctionCounter.builder("idempotency.storage.errors", adder, LongAdder::sum)
                .description("Store calls that failed, by phase")
                .tag("store", store).tag("phase", tag(phase))
                .register(registry));
        FunctionCounter.builder("idempotency.stale", stale, LongAdder::sum)
                .description("Completes and releases refused because the lease had been taken over")
                .tag("store", store).register(registry);
        FunctionCounter.builder("idempotency.results.not.stored", resultsNotStored, LongAdder::sum)
                .description("Results returned but too large or not encodable to store")
                .tag("store", store).register(registry);
    }

    private static String tag(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
