package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.provider.FakePaymentProvider;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A scenario on a working store: open a fresh store client, warm the path up off the record, start
 * the clock, let the subclass stage its calls, then read the ledger and the counters.
 */
abstract class StagedScenario implements Scenario {

    /** Sends the scenario's calls; the provider is fresh, its ledger empty. */
    abstract List<CallerResult> stage(ChargeClient client, FakePaymentProvider provider, ScenarioSettings settings)
            throws InterruptedException;

    /** The post's name for a row under {@code policy}; empty where the post has none. */
    String label(LabPolicy policy) {
        return "";
    }

    /** The settings this scenario reports beyond the common ones. */
    void reportSettings(ScenarioSettings settings, Map<String, Object> reported) { }

    /** What this run's callers show beyond their rows (how the staging went), added to {@code reported}. */
    void reportOutcome(List<CallerResult> callers, ScenarioSettings settings, Map<String, Object> reported) { }

    /** A line about how this run was staged, given how its callers fared; by default {@link #note()}. */
    String note(List<CallerResult> callers, ScenarioSettings settings) {
        return note();
    }

    /** What the action passes to the provider; the post's scenarios pass the client's key. */
    ChargeClient.Downstream downstream() {
        return ChargeClient.Downstream.CLIENT_KEY;
    }

    /** The provider's options (latency, deduplication, fences) beyond the scenario settings' latency. */
    FakePaymentProvider.Builder providerOptions(FakePaymentProvider.Builder provider) {
        return provider;
    }

    /** How a charge is stored for replay: whole, as JSON, unless a scenario stores it otherwise. */
    dev.idemlab.idempotency.ResultCodec<dev.idemlab.provider.Charge> codec(dev.idemlab.provider.PaymentProvider provider) {
        return ChargeClient.CHARGE;
    }

    /** The coordinator's config beyond lease and store-failure mode. */
    IdempotencyConfig.Builder configure(IdempotencyConfig.Builder config) {
        return config;
    }

    /** The store as the coordinator sees it: a scenario may fault it (renewals dropped, ...). */
    IdempotencyStore storeUnderTest(IdempotencyStore recorded, Timeline timeline) {
        return recorded;
    }

    /** A line about how the run was staged, or empty. */
    String note() {
        return "";
    }

    @Override
    public final ScenarioRun run(ScenarioContext context, LabPolicy policy) throws InterruptedException {
        try (IdempotencyStore store = context.backend().openStore()) {
            ChargeClient.warmUp(context, store, policy);
            // The clock starts after the warm-up: arrival times are relative to the race itself.
            Timeline timeline = new Timeline();
            try (ScenarioProvider provider = context.openProvider(timeline, this::providerOptions)) {
                IdempotencyStore underTest = storeUnderTest(new TimelineStore(store, timeline), timeline);
                IdempotencyCoordinator coordinator = context.coordinator(underTest, policy, this::configure);
                List<CallerResult> callers = stage(new ChargeClient(coordinator, provider.client(), timeline,
                        downstream(), codec(provider.client())).through(context.callThrough(), policy),
                        provider.fake(), context.settings());
                Map<String, Object> reported = context.reportedSettings();
                reportSettings(context.settings(), reported);
                reportOutcome(callers, context.settings(), reported);
                return new ScenarioRun(name(), policyName(policy), label(policy), context.backend().server(), reported,
                        callers, provider.chargeIds(), coordinator.stats().totalStorageErrors(),
                        note(callers, context.settings()), timeline.events());
            }
        }
    }

    static String policyName(LabPolicy policy) {
        return policy.name().toLowerCase(Locale.ROOT);
    }
}
