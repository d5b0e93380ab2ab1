package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.ReferenceCodec;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.PaymentProvider;

import java.util.List;
import java.util.Map;

/**
 * A result over the size limit. The limit is set to {@value #LIMIT} bytes here, so that one charge is
 * over it as a large receipt would be over the default 64 KiB. Stored whole, it is returned to the first
 * caller and not stored: the retry's replay fails clearly, and the charge is not made again. Stored by
 * reference ({@code --by-reference}, the library's {@link ReferenceCodec}), the record keeps only the
 * charge id and the replay fetches the charge from the provider: one charge, and every caller gets the
 * whole result.
 */
public final class LargeResultScenario extends StagedScenario {

    static final int LIMIT = 32;

    private final boolean byReference;

    public LargeResultScenario(boolean byReference) {
        this.byReference = byReference;
    }

    @Override
    public String name() {
        return "large-result";
    }

    @Override
    public String summary() {
        return "a result over the size limit, stored whole or by reference";
    }

    @Override
    String label(LabPolicy policy) {
        return byReference ? "by reference" : "stored whole";
    }

    @Override
    IdempotencyConfig.Builder configure(IdempotencyConfig.Builder config) {
        return config.maxResultBytes(LIMIT);
    }

    @Override
    ResultCodec<Charge> codec(PaymentProvider provider) {
        return byReference
                ? ReferenceCodec.of(Charge::id, id -> provider.findCharge(id).orElseThrow())
                : ResultCodec.json(Charge.class);
    }

    @Override
    void reportSettings(ScenarioSettings settings, Map<String, Object> reported) {
        reported.put("maxResultBytes", LIMIT);
        reported.put("byReference", byReference);
        reported.put("mitigated", byReference);
    }

    @Override
    void reportOutcome(List<CallerResult> callers, ScenarioSettings settings, Map<String, Object> reported) {
        // By reference, a replay's charge is the one the provider returns for the stored id: the whole charge.
        boolean whole = byReference && callers.size() == 2 && callers.get(0).response().equals(callers.get(1).response())
                && callers.get(1).outcome().equals("replayed");
        reported.put("everyCallerGotWholeResult", whole);
    }

    @Override
    List<CallerResult> stage(ChargeClient client, FakePaymentProvider provider, ScenarioSettings settings) {
        return List.of(
                client.charge("first call", settings.key(), ScenarioSettings.AMOUNT),
                client.charge("retry", settings.key(), ScenarioSettings.AMOUNT));
    }
}
