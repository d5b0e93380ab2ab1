package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.ContextualAction;
import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotencyStats;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.spi.StoreDescription;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * The application's coordinator as one advised call sees it. The core's planner builds the call from
 * the method's annotation; this is where the starter adds what the core knows nothing of:
 * <ul>
 *   <li>the caller's scope: the call is moved to the operation {@link PrincipalScope} gave for the
 *       calling principal, when {@code operation} is not {@code null};</li>
 *   <li>the active transaction: when {@code inTransaction}, a call whose key has a completion pending
 *       in that transaction (an earlier call of the same transaction, whose record waits for its commit)
 *       is answered from it, as a replay, or refused as a key reused with another fingerprint, rather
 *       than waiting for a completion that only this transaction's own commit can bring
 *       ({@link OuterTransactionCompletion#pending}).</li>
 * </ul>
 * Everything else is the delegate's. Made per call on the caller's thread, so the scope and the
 * transaction are those of the thread that called the method.
 */
final class AdvisedCallCoordinator implements IdempotencyCoordinator {

    private final IdempotencyCoordinator delegate;
    private final String operation;
    private final boolean inTransaction;

    /**
     * @param operation the operation the call is moved to, or {@code null} to keep the planner's
     * @param inTransaction whether the call's record follows the transaction active on the caller's thread
     */
    AdvisedCallCoordinator(IdempotencyCoordinator delegate, String operation, boolean inTransaction) {
        this.delegate = delegate;
        this.operation = operation;
        this.inTransaction = inTransaction;
    }

    @Override
    public <T, E extends Exception> IdempotentResult<T> call(IdempotentCall call, ResultCodec<T> codec,
                                                             ContextualAction<T, E> action) throws E {
        IdempotentCall moved = moved(call);
        IdempotentResult<T> pending = inTransaction ? OuterTransactionCompletion.pending(moved, codec) : null;
        return pending != null ? pending : delegate.call(moved, codec, action);
    }

    @Override
    public <T, E extends Exception> T execute(IdempotentCall call, ResultCodec<T> codec,
                                              ContextualAction<T, E> action) throws E {
        IdempotentCall moved = moved(call);
        IdempotentResult<T> pending = inTransaction ? OuterTransactionCompletion.pending(moved, codec) : null;
        return pending != null ? pending.value() : delegate.execute(moved, codec, action);
    }

    @Override
    public <T, E extends Exception> CompletionStage<IdempotentResult<T>> callAsync(
            IdempotentCall call, ResultCodec<T> codec, ContextualAction<T, E> action, Executor executor) {
        return delegate.callAsync(moved(call), codec, action, executor);
    }

    @Override
    public <T, E extends Exception> CompletionStage<IdempotentResult<T>> callAsync(
            IdempotentCall call, ResultCodec<T> codec, ContextualAction<T, E> action) {
        return delegate.callAsync(moved(call), codec, action);
    }

    private IdempotentCall moved(IdempotentCall call) {
        return operation == null || operation.equals(call.operation()) ? call
                : IdempotentCall.of(operation, call.key(), call.fingerprint());
    }

    @Override
    public IdempotencyConfig config() {
        return delegate.config();
    }

    @Override
    public StoreDescription store() {
        return delegate.store();
    }

    @Override
    public IdempotencyStats stats() {
        return delegate.stats();
    }
}
