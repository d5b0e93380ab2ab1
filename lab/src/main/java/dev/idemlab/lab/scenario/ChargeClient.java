package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.Fingerprint;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.FakePaymentProvider;

import java.util.Locale;
import java.util.Map;

/**
 * A client of the payment API: it charges an order through the coordinator with an idempotency
 * key, and passes the key downstream. Records each call on the scenario's timeline.
 */
final class ChargeClient {

    static final String OPERATION = "payment.charge";
    private static final ResultCodec<Charge> CHARGE = ResultCodec.json(Charge.class);

    private final IdempotencyCoordinator coordinator;
    private final FakePaymentProvider provider;
    private final Timeline timeline;

    ChargeClient(IdempotencyCoordinator coordinator, FakePaymentProvider provider, Timeline timeline) {
        this.coordinator = coordinator;
        this.provider = provider;
        this.timeline = timeline;
    }

    /**
     * Runs one full cycle (fingerprint, reserve, charge, encode, complete, replay) through a
     * throwaway coordinator, provider and key on the same store, so that class loading and the
     * store client's first round trips do not land inside the timed race. Nothing of it is reported.
     */
    static void warmUp(ScenarioContext context, IdempotencyStore store, LabPolicy policy) {
        FakePaymentProvider scratch = FakePaymentProvider.builder().latency(java.time.Duration.ZERO).build();
        IdempotencyCoordinator coordinator = context.coordinator(store, policy);
        ChargeClient client = new ChargeClient(coordinator, scratch, new Timeline());
        String key = "warm-up-" + java.util.UUID.randomUUID();
        client.charge("warm-up", key, ScenarioSettings.AMOUNT);
        client.charge("warm-up", key, ScenarioSettings.AMOUNT);
    }

    /** Starts the scenario's clock now: every time recorded is from here. */
    void startClock() {
        timeline.restart();
    }

    /** Sends one charge as caller {@code name} and records what came back; never throws. */
    CallerResult charge(String name, String key, long amount) {
        long start = timeline.nowMs();
        timeline.record(name, Timeline.COORDINATOR, "charge " + ScenarioSettings.ORDER_ID + " " + amount + ", key " + key, false);
        String response;
        String outcome;
        try {
            IdempotentCall call = IdempotentCall.of(OPERATION, key,
                    Fingerprint.ofFields(Map.of("order_id", ScenarioSettings.ORDER_ID, "amount", amount)));
            IdempotentResult<Charge> result = coordinator.call(call, CHARGE,
                    () -> provider.charge(ScenarioSettings.ORDER_ID, amount, key));
            response = result.value().id();
            outcome = result.outcome().name().toLowerCase(Locale.ROOT).replace('_', '-');
        } catch (RuntimeException e) {
            response = e.getClass().getSimpleName();
            outcome = "error";
        }
        timeline.record(Timeline.COORDINATOR, name, response + ("error".equals(outcome) ? "" : " (" + outcome + ")"), true);
        return new CallerResult(name, start, timeline.nowMs(), response, outcome, provider.chargeCount());
    }
}
