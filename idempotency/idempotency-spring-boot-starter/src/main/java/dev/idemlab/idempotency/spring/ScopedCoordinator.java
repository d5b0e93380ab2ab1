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
 * The application's coordinator for one advised call, with the call moved to the operation its caller's
 * scope gave ({@link PrincipalScope}): the core's planner builds the call from the method's annotation,
 * and this is where the starter puts the principal into it, without the core knowing of principals.
 * Everything else is the delegate's. Made per call on the caller's thread, so the scope is the one of
 * the thread that called the method, even for a method whose action runs on an executor.
 */
final class ScopedCoordinator implements IdempotencyCoordinator {

    private final IdempotencyCoordinator delegate;
    private final String operation;

    ScopedCoordinator(IdempotencyCoordinator delegate, String operation) {
        this.delegate = delegate;
        this.operation = operation;
    }

    @Override
    public <T, E extends Exception> IdempotentResult<T> call(IdempotentCall call, ResultCodec<T> codec,
                                                             ContextualAction<T, E> action) throws E {
        return delegate.call(moved(call), codec, action);
    }

    @Override
    public <T, E extends Exception> T execute(IdempotentCall call, ResultCodec<T> codec,
                                              ContextualAction<T, E> action) throws E {
        return delegate.execute(moved(call), codec, action);
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
        return operation.equals(call.operation()) ? call
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
