package dev.idemlab.lab.scenario;

import dev.idemlab.provider.FakePaymentProvider;

import java.util.List;

/**
 * Failures are not cached: the provider times out on the first call before charging; the client
 * retries with the same key and is charged once.
 */
public final class ProviderTimeoutScenario extends StagedScenario {

    @Override
    public String name() {
        return "provider-timeout";
    }

    @Override
    public String cannotCallThroughProxy() {
        return null;
    }

    @Override
    public String summary() {
        return "the provider times out before charging, and the client retries";
    }

    @Override
    List<CallerResult> stage(ChargeClient client, FakePaymentProvider provider, ScenarioSettings settings) {
        provider.failNextCalls(1);
        return List.of(
                client.charge("first call", settings.key(), ScenarioSettings.AMOUNT),
                client.charge("retry", settings.key(), ScenarioSettings.AMOUNT));
    }
}
