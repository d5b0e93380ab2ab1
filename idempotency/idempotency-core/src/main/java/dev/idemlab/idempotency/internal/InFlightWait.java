package dev.idemlab.idempotency.internal;

import dev.idemlab.idempotency.IdempotencyInterruptedException;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.spi.CompletionNotifications;
import dev.idemlab.idempotency.spi.CompletionNotifications.Ending;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Pending;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The blocking driver of {@link WaitForHolder}, for {@code call}: the caller's thread makes the reads
 * the machine asks for and parks between them, on the subscription's signal when the store notifies
 * (subscribed before the first read), else for the machine's polling pause.
 *
 * <p>Thread-safe: it keeps nothing between calls.
 */
final class InFlightWait {

    private final CompletionNotifications notifications;

    /** @param notifications the store's notifications, or {@code null} when it sends none */
    InFlightWait(CompletionNotifications notifications) {
        this.notifications = notifications;
    }

    /**
     * Waits on the caller's thread until {@code wait} has an answer for {@code seen}.
     *
     * @return a {@link WaitForHolder.Replay}, {@link WaitForHolder.Contend} or {@link WaitForHolder.GiveUp}
     * @throws IdempotencyInterruptedException when the thread is interrupted
     */
    WaitForHolder.Step await(IdempotentCall call, Pending seen, WaitForHolder wait) {
        if (notifications == null) {
            return drive(seen, wait, null);
        }
        Signal ended = new Signal();
        try (CompletionNotifications.Subscription subscription = notifications.subscribe(call.namespace(), ended)) {
            return drive(seen, wait, ended);
        }
    }

    private static WaitForHolder.Step drive(Pending seen, WaitForHolder wait, Signal ended) {
        WaitForHolder.Step step = wait.watch(seen);
        while ((step = wait.readWhileAsked(step)) instanceof WaitForHolder.Sleep sleep) {
            Ending ending = null;
            if (ended == null) {
                LockSupport.parkNanos(sleep.nanos());
            } else {
                ending = ended.await(sleep.nanos());
            }
            step = wait.afterSleep(ending);
        }
        return step;
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
