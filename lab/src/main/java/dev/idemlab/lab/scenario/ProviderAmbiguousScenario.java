package dev.idemlab.lab.scenario;

import dev.idemlab.provider.FakePaymentProvider;

import java.util.List;
import java.util.Map;

/**
 * The ambiguous failure: the provider charges, then its reply is lost (a timeout). The coordinator
 * sees an action that failed and releases the key, as it must (failures are not cached), so the
 * client's retry runs the charge again. Without a downstream key the provider cannot tell it from
 * a new charge: two charges. With the coordinator's downstream key passed to a provider that
 * deduplicates, the retry gets the first charge back: one charge.
 */
public final class ProviderAmbiguousScenario extends StagedScenario {

    private final boolean downstreamKey;

    public ProviderAmbiguousScenario(boolean downstreamKey) {
        this.downstreamKey = downstreamKey;
    }

    @Override
    public String name() {
        return "provider-ambiguous";
    }

    @Override
    public String summary() {
        return "the provider charges, then its reply is lost; the client retries";
    }

    @Override
    String label(dev.idemlab.lab.policy.LabPolicy policy) {
        return "downstream key " + (downstreamKey ? "on" : "off");
    }

    @Override
    ChargeClient.Downstream downstream() {
        return downstreamKey ? ChargeClient.Downstream.CONTEXT_KEY : ChargeClient.Downstream.NONE;
    }

    @Override
    FakePaymentProvider.Builder providerOptions(FakePaymentProvider.Builder provider) {
        return provider.deduplicateOnKey(downstreamKey);
    }

    @Override
    void reportSettings(ScenarioSettings settings, Map<String, Object> reported) {
        reported.put("downstreamKey", downstreamKey ? "on" : "off");
        reported.put("providerDeduplicates", downstreamKey);
        reported.put("mitigated", downstreamKey);
    }

    @Override
    List<CallerResult> stage(ChargeClient client, FakePaymentProvider provider, ScenarioSettings settings) {
        provider.chargeThenTimeOutNextCalls(1);
        return List.of(
                client.charge("first call", settings.key(), ScenarioSettings.AMOUNT),
                client.charge("retry", settings.key(), ScenarioSettings.AMOUNT));
    }
}
