package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.Idempotency;
import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotencyStats;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.lab.faults.FaultKind;
import dev.idemlab.lab.load.LoadKeys;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.FakePaymentProvider;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Calls through {@link NemesisPayments} made by {@code Idempotency.proxy}, one proxy per coordinator
 * (policy and store-failure mode): synchronous callers call {@code charge}, asynchronous ones
 * {@code chargeAsync} and cancel the stage the proxy returned. The proxy answers only the value, so the
 * history's outcome is read from the call's own action: its own charge is EXECUTED (FAILED_OPEN
 * without a fence), another's a replay. The asynchronous method runs on the proxy's executor, the common
 * pool (the proxy takes none), so the nemesis's rejecting executor cannot reach it: that fault is left
 * out. Thread-safe.
 */
final class ProxyPath implements CallPath {

    private final Map<String, IdempotencyCoordinator> coordinators;
    private final Map<String, NemesisPayments> proxies = new HashMap<>();
    private final Callers callers;

    ProxyPath(NemesisSettings settings, IdempotencyStore store, IdempotencyConfig config, FakePaymentProvider provider,
              Callers callers) {
        this.coordinators = CoordinatorPath.coordinators(settings, store, config);
        this.callers = callers;
        NemesisPayments target = new NemesisPayments.OnProvider(provider, callers, callers.asyncStages());
        coordinators.forEach((name, coordinator) ->
                proxies.put(name, Idempotency.proxy(NemesisPayments.class, target, coordinator)));
    }

    @Override
    public boolean plays(FaultKind kind) {
        return kind != FaultKind.REJECT_RESUMPTIONS;
    }

    @Override
    public void send(Workload.Caller caller, CallRecord record, Runnable answered) {
        NemesisPayments payments = proxies.get(CoordinatorPath.name(caller.policy(), caller.onStoreFailure()));
        int key = record.key;
        if (caller.otherBody()) {
            record.asks(LoadKeys.amount(key) + 1);
        }
        NemesisPayments.Attempt attempt = new NemesisPayments.Attempt(record, caller);
        if (!caller.async()) {
            callers.sync().execute(() -> {
                record.sent(callers.now());
                try {
                    answered(record, payments.charge(LoadKeys.key(key), LoadKeys.orderId(key), record.amount(),
                            attempt, null));
                } catch (Throwable failure) {
                    record.failed(callers.now(), failure);
                } finally {
                    answered.run();
                }
            });
            return;
        }
        record.sent(callers.now());
        CompletableFuture<Charge> stage;
        try {
            stage = payments.chargeAsync(LoadKeys.key(key), LoadKeys.orderId(key), record.amount(), attempt, null);
        } catch (Throwable failure) {
            record.failed(callers.now(), failure);
            answered.run();
            return;
        }
        stage.whenComplete((charge, failure) -> {
            if (failure != null) {
                record.failed(callers.now(), CoordinatorPath.unwrap(failure));
            } else {
                answered(record, charge);
            }
            answered.run();
        });
        CoordinatorPath.cancelLater(callers, caller, record, stage);
    }

    private void answered(CallRecord record, Charge charge) {
        record.answered(callers.now(), charge.id(), outcome(record, charge.id()));
    }

    /**
     * How a call's answer was produced, as far as the history can tell without the coordinator's word:
     * its own action's charge ran as the key's holder, or failing open where it had no fence; any other
     * charge is a replay (a waiter's among them).
     */
    static Outcome outcome(CallRecord record, String chargeId) {
        if (chargeId.equals(record.charged())) {
            return record.ranWithoutReservation() ? Outcome.FAILED_OPEN : Outcome.EXECUTED;
        }
        return Outcome.REPLAYED;
    }

    @Override
    public IdempotencyStats stats() {
        return CoordinatorPath.stats(coordinators);
    }

    @Override
    public void close() {
        // Proxies and coordinators hold no threads of their own.
    }
}
