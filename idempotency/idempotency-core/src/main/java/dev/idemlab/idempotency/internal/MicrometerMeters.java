package dev.idemlab.idempotency.internal;

import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.StorePhase;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * The coordinator's counts as Micrometer counters: {@code idempotency.calls{store,outcome}},
 * {@code idempotency.storage.errors{store,phase}}, {@code idempotency.stale{store}} and
 * {@code idempotency.results.not.stored{store}}. Plain counters, not function counters: a second
 * coordinator on the same registry and store gets the same meters back and adds to them, so every
 * coordinator publishes. The key never goes into a tag. Loaded only when a registry is configured,
 * so the core runs without Micrometer. Thread-safe.
 */
final class MicrometerMeters implements CoordinatorCounters.Sink {

    private final Map<Outcome, Counter> calls = new EnumMap<>(Outcome.class);
    private final Map<StorePhase, Counter> storageErrors = new EnumMap<>(StorePhase.class);
    private final Counter stale;
    private final Counter resultsNotStored;
    private final Counter duplicateRisk;

    MicrometerMeters(Object registry, String store) {
        MeterRegistry meters = (MeterRegistry) registry;
        for (Outcome outcome : Outcome.values()) {
            calls.put(outcome, Counter.builder("idempotency.calls")
                    .description("Calls through the idempotency coordinator, by outcome")
                    .tag("store", store).tag("outcome", tag(outcome)).register(meters));
        }
        for (StorePhase phase : StorePhase.values()) {
            storageErrors.put(phase, Counter.builder("idempotency.storage.errors")
                    .description("Store calls that failed, by phase")
                    .tag("store", store).tag("phase", tag(phase)).register(meters));
        }
        stale = Counter.builder("idempotency.stale")
                .description("Completes and releases refused because another attempt holds or completed the key")
                .tag("store", store).register(meters);
        resultsNotStored = Counter.builder("idempotency.results.not.stored")
                .description("Results returned to their caller but not stored for replay")
                .tag("store", store).register(meters);
        duplicateRisk = Counter.builder("idempotency.duplicate.risk")
                .description("Actions that ran but whose record could not be written: a retry may run them again")
                .tag("store", store).register(meters);
    }

    @Override
    public void outcome(Outcome outcome) {
        calls.get(outcome).increment();
    }

    @Override
    public void storageError(StorePhase phase) {
        storageErrors.get(phase).increment();
    }

    @Override
    public void stale() {
        stale.increment();
    }

    @Override
    public void resultNotStored() {
        resultsNotStored.increment();
    }

    @Override
    public void duplicateRisk() {
        duplicateRisk.increment();
    }

    private static String tag(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
