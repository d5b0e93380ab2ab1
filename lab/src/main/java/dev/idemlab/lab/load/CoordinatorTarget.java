package dev.idemlab.lab.load;

import dev.idemlab.idempotency.Fingerprint;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.FakePaymentProvider;
import java.util.Map;

/**
 * The in-process load's target: each request calls the coordinator, whose action charges the provider
 * with the client's key passed downstream. Thread-safe.
 *
 * @param coordinator the coordinator under test
 * @param provider the provider whose ledger is the run's ground truth
 */
record CoordinatorTarget(IdempotencyCoordinator coordinator, FakePaymentProvider provider) implements LoadTarget {

    private static final ResultCodec<Charge> CHARGE = ResultCodec.json(Charge.class);

    @Override
    public void send(int key, ChargeHistory history) {
        String idempotencyKey = LoadKeys.key(key);
        String orderId = LoadKeys.orderId(key);
        long amount = LoadKeys.amount(key);
        IdempotentCall call = IdempotentCall.of(LoadKeys.OPERATION, idempotencyKey,
                Fingerprint.ofFields(Map.of("order_id", orderId, "amount", amount)));
        IdempotentResult<Charge> result = coordinator.call(call, CHARGE,
                () -> provider.charge(orderId, amount, idempotencyKey));
        history.answered(key, result.value().id(), result.outcome());
    }
}
