package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.lab.infra.StoreOutage;
import dev.idemlab.provider.FakePaymentProvider;

import java.util.List;

/**
 * The store itself is down, for real: its server was stopped (or, with a user's URL, the store
 * points where nothing listens). Failing open, the charge runs anyway and the storage error is
 * counted; failing closed, the call is refused and nothing is charged.
 */
public final class StoreDownScenario implements Scenario {

    @Override
    public String name() {
        return "store-down";
    }

    @Override
    public String summary() {
        return "the store's server is unreachable when the charge arrives";
    }

    @Override
    public ScenarioRun run(ScenarioContext context, LabPolicy policy) {
        ScenarioSettings settings = context.settings();
        Timeline timeline = new Timeline();
        FakePaymentProvider provider = context.provider(timeline);
        try (StoreOutage outage = context.backend().openOutage()) {
            IdempotencyCoordinator coordinator = context.coordinator(outage.store(), policy);
            ChargeClient client = new ChargeClient(coordinator, provider, timeline);
            List<CallerResult> callers = List.of(client.charge("store unreachable", settings.key(), ScenarioSettings.AMOUNT));
            return new ScenarioRun(name(), StagedScenario.policyName(policy),
                    settings.storeFailureMode().name().toLowerCase(java.util.Locale.ROOT).replace('_', ' '),
                    context.backend().server(), context.reportedSettings(), callers, provider.chargeIds(),
                    coordinator.stats().totalStorageErrors(), outage.how(), timeline.events());
        }
    }
}
