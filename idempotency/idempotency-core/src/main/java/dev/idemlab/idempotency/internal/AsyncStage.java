package dev.idemlab.idempotency.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;

/**
 * The stage {@code callAsync} returns, which a cancel and the start of the action race for: the call
 * claims the action ({@link #claimAction()}) right before running it, and {@link #cancel} wins only
 * while it has not. So a cancel that returned {@code true} means the action never runs, and once the
 * action is claimed a cancel returns {@code false}, stops nothing, and the stage completes with the
 * action's result. A plain {@code isDone()} check before the action left a window in which a cancel
 * succeeded and the action ran anyway.
 *
 * <p>Dependent stages are plain {@link CompletableFuture}s: cancelling one of them does not reach
 * the call. Thread-safe.
 */
final class AsyncStage<T> extends CompletableFuture<T> {

    private static final int NOT_STARTED = 0;
    private static final int ACTION_CLAIMED = 1;
    private static final int CANCELLED = 2;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(AsyncStage.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // reached through STATE
    private volatile int state;

    /**
     * Cancels the call if its action has not been claimed: then the action never runs. Once it has,
     * returns {@code false} and changes nothing: the action runs to its end and the stage reports it.
     * {@code mayInterruptIfRunning} has no effect, as for every {@code CompletableFuture}.
     */
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        if (STATE.compareAndSet(this, NOT_STARTED, CANCELLED) || state == CANCELLED) {
            return super.cancel(mayInterruptIfRunning);
        }
        return isCancelled();
    }

    /**
     * Claims the action, right before the call runs it: {@code false} when the stage was cancelled or
     * completed otherwise first (a caller's {@code complete}, an {@code orTimeout}), and then the
     * action must not run. Called at most once per call.
     */
    boolean claimAction() {
        return STATE.compareAndSet(this, NOT_STARTED, ACTION_CLAIMED) && !isDone();
    }

    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
        return new CompletableFuture<>();
    }
}
