package dev.idemlab.idempotency.internal;

import dev.idemlab.idempotency.IdempotencyFencedException;
import dev.idemlab.idempotency.IdempotencyStoreUnavailableException;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.StorePhase;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.LocalTransaction;
import dev.idemlab.idempotency.spi.StoredResult;
import dev.idemlab.idempotency.spi.TransactionalAction;

/**
 * The holder's run of a {@link TransactionalAction}: the effect and the record's completion in one
 * transaction on the store's database, the lease renewed meanwhile on the store's own connections.
 *
 * <p>Every way out leaves effect and record together. The effect throws: rolled back, the key released,
 * the exception rethrown. The completion finds the key taken over: rolled back, {@link
 * IdempotencyFencedException}. The completion or commit fails: effect and record committed together or
 * not at all, and a release is safe either way, since it removes only a reservation still held by this
 * token, never a completed record; the caller gets {@link IdempotencyStoreUnavailableException}, and a
 * retry with the same key replays the committed result or runs the effect once. Not thread-safe: one
 * per call.
 */
final class LocalCompletion<T> {

    private final OwnerAttempt<T> attempt;
    private final DefaultIdempotencyCoordinator coordinator;
    private final IdempotentCall call;

    LocalCompletion(OwnerAttempt<T> attempt, DefaultIdempotencyCoordinator coordinator, IdempotentCall call) {
        this.attempt = attempt;
        this.coordinator = coordinator;
        this.call = call;
    }

    <E extends Exception, R> R run(long fence, ResultCodec<T> codec, TransactionalAction<T, E> action,
                                   DefaultIdempotencyCoordinator.Answer<T, R> answer) throws E {
        CoordinatorCounters counters = coordinator.counters();
        coordinator.heartbeats().start(attempt);
        LocalTransaction<T, E> transaction;
        try {
            transaction = begin(action);
        } catch (IdempotencyStoreException cannotBegin) {
            endWithoutRecord();
            throw unknownOutcome(cannotBegin, "opening its transaction; nothing ran");
        }
        boolean committed;
        T value;
        try (transaction) {
            try {
                value = transaction.run(coordinator.context(call, attempt.namespace, fence, action));
            } catch (IdempotencyFencedException takenOver) {
                transaction.close(); // a step of the effect found the key another attempt's
                attempt.stop();
                counters.stale();
                counters.outcome(Outcome.LEASE_LOST);
                throw takenOver;
            } catch (Throwable failure) {
                transaction.close();
                endWithoutRecord();
                counters.outcome(Outcome.ACTION_FAILED);
                throw failure;
            }
            attempt.completing();
            StoredResult stored = coordinator.encoder().encode(codec, value);
            try {
                committed = transaction.complete(attempt.namespace, attempt.token, call.fingerprint().hex(), stored,
                        coordinator.config().ttl());
            } catch (IdempotencyStoreException e) {
                transaction.close();
                endWithoutRecord();
                throw unknownOutcome(e, "committing with its record; both landed or neither, and a retry "
                        + "with the same key replays them or runs once");
            }
        }
        attempt.stop();
        if (!committed) {
            counters.stale();
            counters.outcome(Outcome.LEASE_LOST);
            throw new IdempotencyFencedException(call.operation(), call.key(), fence);
        }
        counters.outcome(Outcome.EXECUTED);
        return answer.of(value, Outcome.EXECUTED);
    }

    private IdempotencyStoreUnavailableException unknownOutcome(IdempotencyStoreException error, String consequence) {
        coordinator.counters().outcome(Outcome.FAILED_CLOSED);
        coordinator.countStorageError(StorePhase.COMPLETE, consequence, error);
        return new IdempotencyStoreUnavailableException(call.operation(), call.key(), coordinator.store().name(),
                StorePhase.COMPLETE, "the local effect failed while " + consequence, error);
    }

    private static <T, E extends Exception> LocalTransaction<T, E> begin(TransactionalAction<T, E> action) {
        LocalTransaction<T, E> transaction = action.begin();
        if (transaction == null) {
            throw new IllegalStateException(action + " began no transaction (null)");
        }
        return transaction;
    }

    /** Stops the renewals and removes this token's reservation, if it still holds one. */
    private void endWithoutRecord() {
        attempt.stop();
        OwnerAttempt.withoutInterrupt(attempt::release);
    }
}
