package dev.idemlab.idempotency.internal;

import dev.idemlab.idempotency.ContextualAction;
import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyInProgressException;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.StorePhase;
import dev.idemlab.idempotency.Ticker;
import dev.idemlab.idempotency.spi.CompletionNotifications;
import dev.idemlab.idempotency.spi.CompletionNotifications.Ending;
import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Completed;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Pending;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.Reservation;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One call of {@code callAsync}: the steps of the blocking call, run on an executor, except that a
 * WAIT caller holds no thread while the holder runs. It subscribes to the store's notification (if
 * the store sends them), re-reads, and returns its thread; the notification, the safety poll or the
 * lease running out resumes it, once, on the executor. Not thread-safe by itself: its steps run one
 * after the other, handed over through the executor.
 */
final class AsyncCall<T, E extends Exception> {

    private final DefaultIdempotencyCoordinator coordinator;
    private final IdempotentCall call;
    private final ResultCodec<T> codec;
    private final ContextualAction<T, E> action;
    private final Executor executor;
    private final IdempotencyStore store;
    private final IdempotencyConfig config;
    private final Ticker ticker;
    private final String token;
    private final CompletableFuture<IdempotentResult<T>> result = new CompletableFuture<>();
    private long deadline;
    private boolean waited;

    AsyncCall(DefaultIdempotencyCoordinator coordinator, IdempotentCall call, ResultCodec<T> codec,
              ContextualAction<T, E> action, Executor executor, Ticker ticker, String token) {
        this.coordinator = coordinator;
        this.call = call;
        this.codec = codec;
        this.action = action;
        this.executor = executor;
        this.store = coordinator.storeClient();
        this.config = coordinator.config();
        this.ticker = ticker;
        this.token = token;
    }

    CompletableFuture<IdempotentResult<T>> start() {
        executor.execute(this::attempt);
        return result;
    }

    /** Reserve: run as the owner, replay, refuse, or wait without a thread. */
    private void attempt() {
        try {
            Reservation reservation;
            // Read here rather than inside withPatience: the owner's heartbeat counts its lease from it.
            long start = coordinator.storeCalls().now();
            try {
                reservation = coordinator.storeCalls().withPatience(start,
                        () -> store.reserve(call.namespace(), token, call.fingerprint().hex(), config.lease()));
            } catch (IdempotencyStoreException e) {
                result.complete(coordinator.reserveFailed(call, token, codec, action, e));
                return;
            }
            if (reservation instanceof Reservation.Acquired acquired) {
                result.complete(new OwnerAttempt<T>(coordinator, call, call.namespace(), token, start)
                        .run(acquired.fence(), codec, action, IdempotentResult::new));
                return;
            }
            settle(((Reservation.Found) reservation).record());
        } catch (Throwable failure) {
            result.completeExceptionally(failure);
        }
    }

    /** {@link #settle} with the store's word on how the reservation ended, on the executor. */
    private void settleGuarded(Completed completed) {
        try {
            settle(completed);
        } catch (Throwable failure) {
            result.completeExceptionally(failure);
        }
    }

    private void settle(IdempotencyRecord found) {
        if (found instanceof Completed completed) {
            result.complete(coordinator.replay(call, completed, codec, waited ? Outcome.WAITED : Outcome.REPLAYED));
            return;
        }
        Pending pending = (Pending) found;
        coordinator.requireSameFingerprint(call, pending);
        if (config.policy() == InFlightPolicy.RAISE) {
            coordinator.counters().outcome(Outcome.IN_PROGRESS);
            throw new IdempotencyInProgressException(call.operation(), call.key(), pending.leaseRemaining());
        }
        if (!waited) {
            waited = true;
            deadline = ticker.read() + config.waitTimeout().toNanos();
        }
        waitWithoutAThread(pending);
    }

    private void waitWithoutAThread(Pending seen) {
        long left = deadline - ticker.read();
        if (left <= 0) {
            coordinator.counters().outcome(Outcome.IN_PROGRESS);
            throw new IdempotencyInProgressException(call.operation(), call.key(), seen.leaseRemaining());
        }
        AtomicBoolean resumed = new AtomicBoolean();
        CompletionNotifications.Subscription[] subscription = new CompletionNotifications.Subscription[1];
        ScheduledFuture<?>[] timer = new ScheduledFuture<?>[1];
        CompletionNotifications.Listener resume = ending -> {
            if (resumed.compareAndSet(false, true)) {
                if (subscription[0] != null) {
                    subscription[0].close();
                }
                if (timer[0] != null) {
                    timer[0].cancel(false);
                }
                executor.execute(ending instanceof Ending.Completed completed && ending.endedReservation(seen.token())
                        ? () -> settleGuarded(completed.record()) : this::attempt);
            }
        };
        CompletionNotifications notifications = CompletionNotifications.of(store);
        boolean notified = notifications != null;
        if (notified) {
            subscription[0] = notifications.subscribe(call.namespace(), resume);
        }
        long poll = notified ? config.safetyPollInterval().toNanos() : config.maxPollInterval().toNanos();
        long untilLeaseEnds = seen.leaseRemaining().toNanos() + TimeUnit.MILLISECONDS.toNanos(1);
        timer[0] = SharedScheduler.get().schedule(() -> resume.ended(Ending.UNKNOWN), Math.min(Math.min(poll, untilLeaseEnds), left),
                TimeUnit.NANOSECONDS);
        if (resumed.get()) {
            timer[0].cancel(false);
        }
        if (notified && changedSince(seen)) {
            resume.ended(Ending.UNKNOWN); // subscribed, then re-read: it ended before the subscription
        }
    }

    private boolean changedSince(Pending seen) {
        try {
            Optional<IdempotencyRecord> now = store.lookup(call.namespace());
            return now.isEmpty() || !(now.get() instanceof Pending pending) || !pending.token().equals(seen.token());
        } catch (IdempotencyStoreException e) {
            coordinator.countStorageError(StorePhase.LOOKUP, "re-reading for an in-flight result, still waiting", e);
            return false;
        }
    }
}
