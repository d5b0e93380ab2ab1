package dev.idemlab.idempotency.internal;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyInProgressException;
import dev.idemlab.idempotency.IdempotencyInterruptedException;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.Ticker;
import dev.idemlab.idempotency.spi.CompletionNotifications;
import dev.idemlab.idempotency.spi.CompletionNotifications.Ending;
import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Pending;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;

import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * How a WAIT caller waits for the attempt that holds the key, until the record changes or a
 * deadline passes.
 *
 * <p>On a store with {@link CompletionNotifications} the waiter subscribes, then re-reads the record
 * (so a completion between its reserve and its subscription is not missed), then sleeps until the
 * store says the reservation ended. When the store says how the reservation the waiter saw ended, that
 * is the answer; otherwise one more read gives it. A slow safety poll stays
 * for notifications lost with a connection, and the waiter also wakes when the lease it saw runs
 * out, since a dead holder sends nothing. A store without notifications is polled with a doubling
 * pause, which needs nothing beyond its lookup.
 *
 * <p>A failed read does not end the wait at once. The waiter has just seen an identical request in
 * flight, so running the action now would all but certainly charge twice; it keeps reading (each
 * failure counted) until the lease it saw would have run out, which is when it could have taken the
 * key over anyway. Only a store still failing then is handed back to the store-failure mode.
 *
 * <p>Thread-safe.
 */
final class InFlightWait {

    private final IdempotencyStore store;
    private final CompletionNotifications notifications;
    private final Ticker ticker;
    private final Consumer<IdempotencyStoreException> survivedStorageError;
    private final long timeoutNanos;
    private final long minPauseNanos;
    private final long maxPauseNanos;
    private final long safetyPollNanos;

    InFlightWait(IdempotencyStore store, IdempotencyConfig config, Ticker ticker,
                 Consumer<IdempotencyStoreException> survivedStorageError) {
        this.store = store;
        this.notifications = CompletionNotifications.of(store);
        this.ticker = ticker;
        this.survivedStorageError = survivedStorageError;
        this.timeoutNanos = config.waitTimeout().toNanos();
        this.minPauseNanos = config.minPollInterval().toNanos();
        this.maxPauseNanos = config.maxPollInterval().toNanos();
        this.safetyPollNanos = config.safetyPollInterval().toNanos();
    }

    /** When a wait that starts now must give up. */
    record Deadline(long atNanos) { }

    Deadline startDeadline() {
        return new Deadline(ticker.read() + timeoutNanos);
    }

    /** Whether waiters are woken by the store rather than by polling. */
    boolean notified() {
        return notifications != null;
    }

    /**
     * Waits until the record under the call's namespace is no longer {@code seen}'s reservation.
     *
     * @return the record that replaced it (completed, or another attempt's reservation), or empty
     *     when the key is free again (released, or the lease ran out)
     * @throws IdempotencyInProgressException when the deadline passes first
     * @throws IdempotencyInterruptedException when the thread is interrupted
     * @throws IdempotencyStoreException what the store threw, when it still fails after the seen lease ran out
     */
    Optional<IdempotencyRecord> awaitChange(IdempotentCall call, Pending seen, Deadline deadline) {
        if (notifications == null) {
            return poll(call, seen, deadline, null);
        }
        Signal ended = new Signal();
        try (CompletionNotifications.Subscription subscription = notifications.subscribe(call.namespace(), ended)) {
            return poll(call, seen, deadline, ended);
        }
    }

    /**
     * Reads until the record changes. With {@code ended} (a subscription's signal) the first read comes
     * at once and later ones when the store signals, the safety poll is due or the lease runs out;
     * without it, after a doubling pause.
     */
    private Optional<IdempotencyRecord> poll(IdempotentCall call, Pending seen, Deadline deadline, Signal ended) {
        long pause = minPauseNanos;
        Pending current = seen;
        long leaseEndsAt = ticker.read() + seen.leaseRemaining().toNanos();
        boolean readNow = ended != null; // subscribed: re-read at once, so nothing ended unseen
        while (true) {
            long left = deadline.atNanos() - ticker.read();
            if (left <= 0) {
                throw new IdempotencyInProgressException(call.operation(), call.key(), current.leaseRemaining());
            }
            if (!readNow) {
                if (ended == null) {
                    java.util.concurrent.locks.LockSupport.parkNanos(Math.min(pause, left));
                    pause = Math.min(pause * 2, maxPauseNanos);
                } else {
                    long untilLeaseEnds = Math.max(0, leaseEndsAt - ticker.read()) + TimeUnit.MILLISECONDS.toNanos(1);
                    Ending ending = ended.await(Math.min(Math.min(safetyPollNanos, untilLeaseEnds), left));
                    if (ending != null && ending.endedReservation(current.token())) {
                        return ending instanceof Ending.Completed completed
                                ? Optional.of(completed.record()) : Optional.empty();
                    }
                }
                if (Thread.currentThread().isInterrupted()) {
                    throw new IdempotencyInterruptedException(call.operation(), call.key(), null);
                }
            }
            readNow = false;
            Optional<IdempotencyRecord> record;
            try {
                record = store.lookup(call.namespace());
            } catch (IdempotencyStoreException e) {
                if (ticker.read() - leaseEndsAt >= 0 || Thread.currentThread().isInterrupted()) {
                    throw e;
                }
                survivedStorageError.accept(e);
                continue;
            }
            if (record.isEmpty()) {
                return record;
            }
            if (!(record.get() instanceof Pending pending) || !pending.token().equals(seen.token())) {
                return record;
            }
            current = pending;
            leaseEndsAt = ticker.read() + pending.leaseRemaining().toNanos();
        }
    }

    /** A subscription's signal to its one waiting thread, carrying the latest ending the store told. */
    private static final class Signal implements CompletionNotifications.Listener {

        private final Semaphore told = new Semaphore(0);
        private final AtomicReference<Ending> latest = new AtomicReference<>();

        @Override
        public void ended(Ending ending) {
            latest.set(ending);
            told.release();
        }

        /**
         * Waits up to {@code nanos} for the store's word; returns the latest ending told, or null when
         * nothing came (a safety poll or the lease's end is due) or the thread was interrupted.
         */
        Ending await(long nanos) {
            try {
                if (told.tryAcquire(nanos, TimeUnit.NANOSECONDS)) {
                    told.drainPermits();
                    return latest.getAndSet(null);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return null;
        }
    }
}
