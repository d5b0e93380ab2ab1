package dev.idemlab.lab.scenario;

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

    /** A line about how this run was staged, or empty. */
    String note(List<CallerResult> callers, ScenarioSettings settings) {
        return "";
    }

    @Override
    public final ScenarioRun run(ScenarioContext context, LabPolicy policy) throws InterruptedException {
        try (IdempotencyStore store = context.backend().openStore()) {
            ChargeClient.warmUp(context, store, policy);
            // The clock starts after the warm-up: arrival times are relative to the race itself.
            Timeline timeline = new Timeline();
            FakePaymentProvider provider = context.provider(timeline);
            IdempotencyCoordinator coordinator = context.coordinator(store, policy);
            List<CallerResult> callers = stage(new ChargeClient(coordinator, provider, timeline), provider,
                    context.settings());
            Map<String, Object> reported = context.reportedSettings();
            reportSettings(context.settings(), reported);
            reportOutcome(callers, context.settings(), reported);
            return new ScenarioRun(name(), policyName(policy), label(policy), context.backend().server(), reported,
                    callers, provider.chargeIds(), coordinator.stats().totalStorageErrors(),
                    note(callers, context.settings()), timeline.events());
        }
    }

    static String policyName(LabPolicy policy) {
        return policy.name().toLowerCase(Locale.ROOT);
    }
}
