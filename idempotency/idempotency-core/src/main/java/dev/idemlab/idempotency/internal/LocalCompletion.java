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
        coordinator.heartbeats().start(attempt);
        LocalTransaction<T, E> transaction = begin(action);
        T value = effect(transaction, fence, action);
        boolean committed = commit(transaction, codec, value);
        CoordinatorCounters counters = coordinator.counters();
        if (!committed) {
            counters.stale();
            counters.outcome(Outcome.LEASE_LOST);
            throw new IdempotencyFencedException(call.operation(), call.key(), fence);
        }
        counters.outcome(Outcome.EXECUTED);
        return answer.of(value, Outcome.EXECUTED);
    }

    /** Opens the holder's transaction; whatever keeps it from opening ends the attempt without a record. */
    private <E extends Exception> LocalTransaction<T, E> begin(TransactionalAction<T, E> action) {
        try {
            LocalTransaction<T, E> transaction = action.begin();
            if (transaction == null) {
                throw new IllegalStateException(action + " began no transaction (null)");
            }
            return transaction;
        } catch (IdempotencyStoreException cannotBegin) {
            endWithoutRecord();
            throw unknownOutcome(cannotBegin, "opening its transaction; nothing ran");
        } catch (RuntimeException | Error failure) {
            // The renewals started with the attempt: without this they would hold the key for good.
            endWithoutRecord();
            coordinator.counters().outcome(Outcome.ACTION_FAILED);
            throw failure;
        }
    }

    /**
     * Runs the effect in {@code transaction}. On a failure the transaction is closed here, its only
     * close on that way out, and before the release, which the transaction's locks could hold up.
     */
    private <E extends Exception> T effect(LocalTransaction<T, E> transaction, long fence,
                                           TransactionalAction<T, E> action) throws E {
        try {
            return transaction.run(coordinator.context(call, attempt.namespace, fence, action));
        } catch (IdempotencyFencedException takenOver) {
            transaction.close(); // a step of the effect found the key another attempt's: not ours to release
            attempt.stop();
            coordinator.counters().stale();
            coordinator.counters().outcome(Outcome.LEASE_LOST);
            throw takenOver;
        } catch (Throwable failure) {
            transaction.close();
            endWithoutRecord();
            coordinator.counters().outcome(Outcome.ACTION_FAILED);
            throw failure;
        }
    }

    /**
     * Completes the record in {@code transaction}, which commits effect and record; {@code false} if the
     * key was taken over and nothing was committed. Closes the transaction exactly once on every way out,
     * before any release.
     */
    private boolean commit(LocalTransaction<T, ?> transaction, ResultCodec<T> codec, T value) {
        boolean committed;
        try {
            attempt.completing();
            StoredResult stored = coordinator.encoder().encode(codec, value);
            committed = transaction.complete(attempt.namespace, attempt.token, call.fingerprint().hex(), stored,
                    coordinator.config().ttl());
        } catch (IdempotencyStoreException e) {
            transaction.close();
            endWithoutRecord();
            throw unknownOutcome(e, "committing with its record; both landed or neither, and a retry "
                    + "with the same key replays them or runs once");
        } catch (RuntimeException | Error brokenContract) {
            // Not a store error: the effect's own data refused at commit (nothing landed), or a transaction
            // with a bug. As above, the release removes only a reservation still this token's, and the
            // renewals must stop either way.
            transaction.close();
            endWithoutRecord();
            coordinator.counters().outcome(Outcome.ACTION_FAILED);
            throw brokenContract;
        }
        transaction.close();
        attempt.stop();
        return committed;
    }

    private IdempotencyStoreUnavailableException unknownOutcome(IdempotencyStoreException error, String consequence) {
        coordinator.counters().outcome(Outcome.FAILED_CLOSED);
        coordinator.countStorageError(StorePhase.COMPLETE, consequence, error);
        return new IdempotencyStoreUnavailableException(call.operation(), call.key(), coordinator.store().name(),
                StorePhase.COMPLETE, "the local effect failed while " + consequence, error);
    }

    /** Stops the renewals and removes this token's reservation, if it still holds one. */
    private void endWithoutRecord() {
        attempt.stop();
        OwnerAttempt.withoutInterrupt(attempt::release);
    }
}
