package dev.idemlab.lab.scenario;

import dev.idemlab.provider.FakePaymentProvider;

import java.util.List;
import java.util.Map;

/**
 * "A key is unique per operation, not per system": the record lives under {@code operation:key}.
 * The same charge sent with the same key through two operations ({@code checkout.pay}, then the
 * {@code payment.charge} it calls) is two records and two charges; sent twice through one
 * operation it is one record, and the second call replays.
 */
public final class ScopeScenario extends StagedScenario {

    static final String OTHER_OPERATION = "checkout.pay";

    private final boolean oneOperation;

    public ScopeScenario(boolean oneOperation) {
        this.oneOperation = oneOperation;
    }

    @Override
    public String name() {
        return "scope";
    }

    @Override
    public String summary() {
        return "one key under two operations is two records; under one operation, one";
    }

    @Override
    String label(dev.idemlab.lab.policy.LabPolicy policy) {
        return oneOperation ? "one operation" : "two operations";
    }

    @Override
    void reportSettings(ScenarioSettings settings, Map<String, Object> reported) {
        reported.put("operations", oneOperation ? List.of(ChargeClient.OPERATION)
                : List.of(OTHER_OPERATION, ChargeClient.OPERATION));
        reported.put("mitigated", oneOperation);
    }

    @Override
    List<CallerResult> stage(ChargeClient client, FakePaymentProvider provider, ScenarioSettings settings) {
        String first = oneOperation ? ChargeClient.OPERATION : OTHER_OPERATION;
        return List.of(
                client.charge(first, first, settings.key(), ScenarioSettings.AMOUNT),
                client.charge(ChargeClient.OPERATION, ChargeClient.OPERATION, settings.key(), ScenarioSettings.AMOUNT));
    }
}
