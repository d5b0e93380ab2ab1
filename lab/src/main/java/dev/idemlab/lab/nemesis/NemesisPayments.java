package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.Idempotent;
import dev.idemlab.idempotency.IdempotencyContext;
import dev.idemlab.idempotency.IdempotencyKey;
import dev.idemlab.lab.load.LoadKeys;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.FakePaymentProvider;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

/**
 * The nemesis's payments as a user writes them for {@code Idempotency.proxy}: one synchronous and one
 * asynchronous {@link Idempotent} method. The fingerprint names {@code order_id} and {@code amount},
 * the fields the bare coordinator's calls and the child-JVM holders fingerprint, so that a holder's
 * retry through the proxy is the same request. The {@link Attempt} is the history's, not the request's:
 * it is left out of the fingerprint.
 */
interface NemesisPayments {

    /** Charges {@code amount} for {@code order_id}, once per key. */
    @Idempotent(operation = LoadKeys.OPERATION, fingerprint = {"order_id", "amount"})
    Charge charge(@IdempotencyKey String key, String order_id, long amount, Attempt attempt,
                  IdempotencyContext context) throws InterruptedException;

    /** As {@link #charge}, answering a stage. */
    @Idempotent(operation = LoadKeys.OPERATION, fingerprint = {"order_id", "amount"})
    CompletableFuture<Charge> chargeAsync(@IdempotencyKey String key, String order_id, long amount, Attempt attempt,
                                          IdempotencyContext context);

    /** The call of the history a method runs for, and its plan: how long its action takes, whether it fails. */
    record Attempt(CallRecord record, Workload.Caller caller) { }

    /**
     * The methods' bodies: the workload's action, reading the context the proxy passes in. The asynchronous
     * one records its start on the proxy's thread, then charges on {@code stages}. Thread-safe.
     */
    final class OnProvider implements NemesisPayments {

        private final FakePaymentProvider provider;
        private final Callers callers;
        private final Executor stages;

        OnProvider(FakePaymentProvider provider, Callers callers, Executor stages) {
            this.provider = provider;
            this.callers = callers;
            this.stages = stages;
        }

        @Override
        public Charge charge(String key, String order_id, long amount, Attempt attempt, IdempotencyContext context)
                throws InterruptedException {
            return CoordinatorPath.charge(provider, callers, attempt.caller(), attempt.record(), context);
        }

        @Override
        public CompletableFuture<Charge> chargeAsync(String key, String order_id, long amount, Attempt attempt,
                                                     IdempotencyContext context) {
            CoordinatorPath.started(callers, attempt.record(), context);
            return CompletableFuture.supplyAsync(() -> {
                try {
                    return CoordinatorPath.charge(provider, attempt.caller(), attempt.record(), context);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new CompletionException(e);
                }
            }, stages);
        }
    }
}
