package dev.idemlab.idempotency.internal;

import dev.idemlab.idempotency.IdempotentResult;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * The stage an asynchronous {@code @Idempotent} method returns: the value of the call's stage, whose
 * {@link #cancel} is the call's. A stage derived with {@code thenApply} is not the call (cancelling it
 * leaves the call running), so a caller who cancelled what the method returned, and was told
 * {@code true}, had the action run and charge anyway. Here a cancel asks the call's stage, which refuses
 * once the action is claimed: {@code true} means the action never runs, {@code false} that it runs and
 * this stage completes with its result. Thread-safe.
 */
final class MethodStage<T> extends CompletableFuture<T> {

    private final CompletableFuture<IdempotentResult<T>> call;

    private MethodStage(CompletableFuture<IdempotentResult<T>> call) {
        this.call = call;
    }

    /** The value of {@code call}, completing as it completes, failing as a derived stage would. */
    static <T> MethodStage<T> of(CompletionStage<IdempotentResult<T>> call) {
        MethodStage<T> stage = new MethodStage<>(call.toCompletableFuture());
        stage.call.whenComplete((result, failure) -> {
            if (failure == null) {
                stage.complete(result.value());
            } else if (failure instanceof CancellationException
                    || failure instanceof CompletionException && failure.getCause() instanceof CancellationException) {
                stage.cancelled();
            } else {
                // As thenApply completes a dependent of a failed stage: the cause, wrapped once.
                stage.completeExceptionally(failure instanceof CompletionException ? failure
                        : new CompletionException(failure));
            }
        });
        return stage;
    }

    /**
     * Cancels the call if its action has not been claimed; then this stage is cancelled too. Once the
     * action is claimed, returns {@code false} and changes nothing.
     */
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        call.cancel(mayInterruptIfRunning);
        return isCancelled();
    }

    private void cancelled() {
        super.cancel(false);
    }
}
