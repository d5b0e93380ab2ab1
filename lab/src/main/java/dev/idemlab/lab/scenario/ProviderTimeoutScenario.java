package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.provider.FakePaymentProvider;

import java.util.List;

/**
 * Failures are not cached: the provider times out on the first call before charging; the client
 * retries with the same key and is charged once.
 */
public final class ProviderTimeoutScenario implements Scenario {

    @Override
    public String name() {
        return "provider-timeout";
    }

    @Override
    public String summary() {
        return "the provider times out before charging, and the client retries";
    }

    @Override
    public ScenarioRun run(ScenarioContext context, InFlightPolicy policy) {
        ScenarioSettings settings = context.settings();
        Timeline timeline = new Timeline();
        FakePaymentProvider provider = context.provider(timeline);
        provider.failNextCalls(1);
        try (IdempotencyStore store = context.backend().openStore()) {
            ChargeClient.warmUp(context, store);
            IdempotencyCoordinator coordinator = context.coordinator(store, policy);
            ChargeClient client = new ChargeClient(coordinator, provider, timeline);
            List<CallerResult> callers = List.of(
                    client.charge("first call", settings.key(), ScenarioSettings.AMOUNT),
                    client.charge("retry", settings.key(), ScenarioSettings.AMOUNT));
            return new ScenarioRun(name(), InFlightScenario.policyName(policy), "", context.backend().server(),
                    context.reportedSettings(), callers, provider.chargeIds(),
                    coordinator.stats().totalStorageErrors(), "", timeline.events());
        }
    }
}
