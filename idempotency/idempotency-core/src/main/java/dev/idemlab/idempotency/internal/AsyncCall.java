package dev.idemlab.idempotency.internal;

import dev.idemlab.idempotency.ContextualAction;
import dev.idemlab.idempotency.IdempotencyRecordUnreadableException;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.StoreFailureMode;
import dev.idemlab.idempotency.StorePhase;
import dev.idemlab.idempotency.spi.CompletionNotifications;
import dev.idemlab.idempotency.spi.CompletionNotifications.Ending;
import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Pending;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.Reservation;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One call of {@code callAsync}: the blocking call's decisions (the coordinator's reserve,
 * {@link Replays}, the {@link OwnerAttempt}), run on the caller's executor,
 * with the same {@link WaitForHolder} driven by timers instead of a parked thread. Between reads a
 * waiter holds no thread: a timer on the {@link SharedScheduler}, the store's notification or the
 * stage's cancellation resumes it, once per sleep, on the executor.
 *
 * <p>Its stage always completes: whatever a step throws, and an executor that rejects a
 * resumption, complete it exceptionally. The stage is an {@link AsyncStage}: the call claims the
 * action on it right before running it (as the owner, or failing open), and a stage that was
 * cancelled or completed before that claim never runs the action; a reservation it took is released
 * in the background. After the claim, a cancel is refused. No resumption is handed to the executor
 * while this call holds a reservation: the reserve and the action run in one step.
 *
 * <p>Observed as the blocking call is ({@link CallObservation}): the call from its start to its stage's
 * completion, with its reserves, each wait (from the first read to the wait's end, however many timers
 * it slept on), the action, the complete and the release as children. A cancelled call ends with outcome
 * {@code cancelled}. Only the action runs with its observation as the thread's current one.
 *
 * <p>Thread-safety: its steps run one after another, each handed over through the executor or
 * through the atomic {@link #napping}, which orders them; only the latest notified ending and the
 * nap are touched by the store's and the timer's threads.
 */
final class AsyncCall<T, E extends Exception> implements CompletionNotifications.Listener {

    /** The outcome tag of a call, or a wait, whose stage was cancelled. */
    private static final String CANCELLED = "cancelled";

    private final DefaultIdempotencyCoordinator coordinator;
    private final IdempotentCall call;
    private final ResultCodec<T> codec;
    private final ContextualAction<T, E> action;
    private final Executor executor;
    private final String token;
    private final AsyncStage<IdempotentResult<T>> result = new AsyncStage<>();
    private final AtomicReference<Ending> latest = new AtomicReference<>();
    /** The sleep in progress; whoever takes it out (timer, notification, cancellation) resumes the wait. */
    private final AtomicReference<Nap> napping = new AtomicReference<>();
    private final CallObservation observed;
    private WaitForHolder waiting;
    /** The wait in progress as an observation, or {@code null} when none is. */
    private CallObservation waitObserved;
    private CompletionNotifications.Subscription subscription;

    AsyncCall(DefaultIdempotencyCoordinator coordinator, IdempotentCall call, ResultCodec<T> codec,
              ContextualAction<T, E> action, Executor executor, String token, CallObservation observed) {
        this.coordinator = coordinator;
        this.call = call;
        this.codec = codec;
        this.action = action;
        this.executor = executor;
        this.token = token;
        this.observed = observed;
    }

    /** Starts the call on the executor; the future is the caller's, and cancelling it stops the call until its action is claimed. */
    CompletableFuture<IdempotentResult<T>> start() {
        // A cancelled stage wakes its sleeping wait, so it lets go of its subscription and timer now.
        result.whenComplete((value, failure) -> wake());
        if (observed != CallObservation.NONE) { // an unobserved call allocates nothing for it
            result.whenComplete(this::observeEnd);
        }
        resume(this::attempt);
        return result;
    }

    /** A step of the call, run on the executor. */
    @FunctionalInterface
    private interface Resumption {
        void run() throws Exception;
    }

    private void resume(Resumption step) {
        try {
            executor.execute(() -> {
                try {
                    step.run();
                } catch (Throwable failure) {
                    fail(failure);
                }
            });
        } catch (Throwable rejected) {
            fail(rejected); // a shut-down or saturated executor: the stage still completes
        }
    }

    /** Ends the call's observation as its stage completed: with its answer's outcome, refused, failed or cancelled. */
    private void observeEnd(IdempotentResult<T> value, Throwable failure) {
        if (failure == null) {
            observed.answered(value.outcome());
        } else if (failure instanceof java.util.concurrent.CancellationException) {
            observed.stop(CANCELLED);
        } else {
            observed.failed(failure);
        }
    }

    /** Ends the wait's observation, if one is in progress, with {@code outcome} (after {@code failure}, if not null). */
    private void endWait(String outcome, Throwable failure) {
        CallObservation ending = waitObserved;
        waitObserved = null;
        if (ending == null) {
            return;
        }
        if (failure == null) {
            ending.stop(outcome);
        } else {
            ending.failed(failure);
        }
    }

    private void fail(Throwable failure) {
        endWait(null, failure);
        stopWaiting();
        if (failure instanceof IdempotencyRecordUnreadableException unreadable) {
            coordinator.refused(unreadable);
        }
        result.completeExceptionally(failure);
    }

    /** Reserve: run as the owner, replay, refuse, or wait without a thread. */
    private void attempt() throws E {
        if (result.isDone()) {
            return; // cancelled before the reserve: nothing was reserved
        }
        Reservation reservation;
        // Read here: the owner's heartbeat counts its lease from it.
        long start = coordinator.storeCalls().now();
        String namespace = call.namespace();
        try {
            reservation = coordinator.observedReserve(call, namespace, token, start, observed);
        } catch (IdempotencyStoreException e) {
            reserveFailed(e);
            return;
        }
        if (reservation instanceof Reservation.Acquired acquired) {
            if (!result.claimAction()) {
                coordinator.releaseLater(call, token); // cancelled while reserving: the action never runs
                return;
            }
            result.complete(new OwnerAttempt<T>(coordinator, call, namespace, token, start, observed)
                    .run(acquired.fence(), codec, action, IdempotentResult::new));
            return;
        }
        IdempotencyRecord found = ((Reservation.Found) reservation).record();
        IdempotentResult<T> settled = coordinator.replays().answerFound(call, found, codec, waiting != null);
        if (settled != null) {
            result.complete(settled);
            return;
        }
        if (waiting == null) {
            waiting = new WaitForHolder(coordinator, call);
        }
        CompletionNotifications notifications = coordinator.notifications();
        if (notifications != null) {
            subscription = notifications.subscribe(call.namespace(), this);
        }
        waitObserved = observed.phase(CallObservation.Phase.WAIT);
        advance(waiting.watch((Pending) found));
    }

    private void reserveFailed(IdempotencyStoreException e) throws E {
        // Failing open runs the action, so it is claimed first; failing closed runs nothing to claim.
        boolean failsOpen = coordinator.config().storeFailureMode() == StoreFailureMode.FAIL_OPEN;
        if (failsOpen ? result.claimAction() : !result.isDone()) {
            result.complete(coordinator.reserveFailed(call, token, codec, action, e));
            return;
        }
        // Cancelled meanwhile: the store-failure mode would run the action, and nobody waits for it.
        coordinator.countStorageError(StorePhase.RESERVE, "the call was cancelled meanwhile, nothing runs", e);
        if (e.mayHaveLanded()) {
            coordinator.releaseLater(call, token);
        }
    }

    /** Makes the reads the wait asks for, then sleeps on a timer or acts on the wait's end. */
    private void advance(WaitForHolder.Step step) throws E {
        if (result.isDone()) {
            endWait(CANCELLED, null);
            stopWaiting(); // cancelled while waiting
            return;
        }
        step = waiting.readWhileAsked(step);
        if (step instanceof WaitForHolder.Sleep sleep) {
            nap(sleep.nanos());
            return;
        }
        stopWaiting();
        IdempotentResult<T> waited = coordinator.replays().waitEnded(call, step, codec);
        endWait(waited == null ? "contend" : "replayed", null);
        if (waited != null) {
            result.complete(waited);
        } else {
            attempt();
        }
    }

    private void nap(long nanos) {
        Nap nap = new Nap();
        napping.set(nap);
        nap.timer = SharedScheduler.get().schedule(() -> wakeFrom(nap), nanos, TimeUnit.NANOSECONDS);
        if (napping.get() != nap) {
            nap.timer.cancel(false); // woken already: the timer would only keep this call reachable
        }
        // Told or cancelled before the nap was set: the listener found nothing to wake.
        if (latest.get() != null || result.isDone()) {
            wakeFrom(nap);
        }
    }

    /** The store says a reservation under the key ended; on the store's thread. */
    @Override
    public void ended(Ending ending) {
        latest.set(ending);
        wake();
    }

    private void wake() {
        Nap nap = napping.get();
        if (nap != null) {
            wakeFrom(nap);
        }
    }

    private void wakeFrom(Nap nap) {
        if (napping.compareAndSet(nap, null)) {
            nap.cancelTimer();
            resume(() -> advance(waiting.afterSleep(latest.getAndSet(null))));
        }
    }

    /** Lets go of the timer and the subscription; by the one thread the call's state belongs to now. */
    private void stopWaiting() {
        Nap nap = napping.getAndSet(null);
        if (nap != null) {
            nap.cancelTimer();
        }
        if (subscription != null) {
            subscription.close();
            subscription = null;
        }
        latest.set(null);
    }

    /** One sleep of the wait, and the timer that ends it. */
    private static final class Nap {
        volatile ScheduledFuture<?> timer;

        void cancelTimer() {
            ScheduledFuture<?> set = timer;
            if (set != null) {
                set.cancel(false);
            }
        }
    }
}
