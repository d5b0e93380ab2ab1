package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.provider.FakePaymentProvider;

import java.util.List;

/**
 * The key is not the request: the same key with the same amount replays; the same key with
 * amount 5 is refused as key reuse, and the provider still holds one charge.
 */
public final class KeyReuseScenario implements Scenario {

    @Override
    public String name() {
        return "key-reuse";
    }

    @Override
    public String summary() {
        return "the same key sent again with the same amount, then with another amount";
    }

    @Override
    public ScenarioRun run(ScenarioContext context, InFlightPolicy policy) {
        ScenarioSettings settings = context.settings();
        Timeline timeline = new Timeline();
        FakePaymentProvider provider = context.provider(timeline);
        try (IdempotencyStore store = context.backend().openStore()) {
            ChargeClient.warmUp(context, store);
            IdempotencyCoordinator coordinator = context.coordinator(store, policy);
            ChargeClient client = new ChargeClient(coordinator, provider, timeline);
            List<CallerResult> callers = List.of(
                    client.charge("first call", settings.key(), ScenarioSettings.AMOUNT),
                    client.charge("same key, same amount", settings.key(), ScenarioSettings.AMOUNT),
                    client.charge("same key, amount " + ScenarioSettings.OTHER_AMOUNT, settings.key(),
                            ScenarioSettings.OTHER_AMOUNT));
            return new ScenarioRun(name(), InFlightScenario.policyName(policy), "", context.backend().server(),
                    context.reportedSettings(), callers, provider.chargeIds(),
                    coordinator.stats().totalStorageErrors(), "", timeline.events());
        }
    }
}
