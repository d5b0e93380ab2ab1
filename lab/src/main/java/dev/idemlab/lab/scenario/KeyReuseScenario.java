package dev.idemlab.lab.scenario;

import dev.idemlab.provider.FakePaymentProvider;

import java.util.List;

/**
 * The key is not the request: the same key with the same amount replays; the same key with
 * amount 5 is refused as key reuse, and the provider still holds one charge.
 */
public final class KeyReuseScenario extends StagedScenario {

    @Override
    public String name() {
        return "key-reuse";
    }

    @Override
    public String cannotCallThroughProxy() {
        return null;
    }

    @Override
    public String summary() {
        return "the same key sent again with the same amount, then with another amount";
    }

    @Override
    List<CallerResult> stage(ChargeClient client, FakePaymentProvider provider, ScenarioSettings settings) {
        return List.of(
                client.charge("first call", settings.key(), ScenarioSettings.AMOUNT),
                client.charge("same key, same amount", settings.key(), ScenarioSettings.AMOUNT),
                client.charge("same key, amount " + ScenarioSettings.OTHER_AMOUNT, settings.key(),
                        ScenarioSettings.OTHER_AMOUNT));
    }
}
