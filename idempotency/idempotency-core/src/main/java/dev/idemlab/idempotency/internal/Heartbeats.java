package dev.idemlab.idempotency.internal;

import dev.idemlab.idempotency.Ticker;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;

/**
 * Starts the heartbeats of one coordinator, lazily: a started heartbeat is pushed on a lock-free stack,
 * and one timer task per batch, run {@link #batchDelayNanos} after the batch's first heartbeat, puts
 * on the timer only those whose action is still running. Every heartbeat of a batch has its first
 * renewal one interval after the batch opened, which is no later than one interval after its own start
 * (see {@link #start}), so a holder whose action outlives the lease renews no later than an eagerly
 * scheduled heartbeat would, while a call whose action returns sooner costs one object and one
 * compare-and-set instead of a timer insertion, a cancellation and a wake-up of the timer thread.
 *
 * <p>The batch delay is at most half the interval (so the first renewal is never late because of
 * batching) and at most {@value #MAX_BATCH_DELAY_MILLIS} ms (so a batch stays small). Thread-safe.
 */
final class Heartbeats {

    static final long MAX_BATCH_DELAY_MILLIS = 10;

    private final IdempotencyStore store;
    private final Duration lease;
    private final long leaseNanos;
    private final Ticker ticker;
    private final BiConsumer<IdempotencyStoreException, Boolean> onRenewFailed;
    private final long intervalNanos;
    private final long batchDelayNanos;
    private final AtomicReference<Heartbeat> unscheduled = new AtomicReference<>();
    private final AtomicBoolean batchPending = new AtomicBoolean();
    private final Runnable scheduleBatch = this::scheduleBatch;
    /**
     * When the pending batch opened ({@code System.nanoTime()}). Written by the start that opens the
     * batch, before it puts the batch on the timer; read by the batch before it lets the next one open.
     */
    private long batchOpenedAtNanos;

    /**
     * Heartbeats that renew reservations in {@code store} for {@code lease} every {@code interval},
     * and tell by {@code ticker} when the lease a holder last confirmed has run out.
     * {@code onRenewFailed} runs for every renewal that failed with a storage error (it is tried again
     * soon and at the next beat), on the thread of {@link SharedScheduler#storeCalls()} that ran it,
     * told whether it is the holder's first failure since its lease was last confirmed.
     */
    Heartbeats(IdempotencyStore store, Duration lease, Duration interval, Ticker ticker,
               BiConsumer<IdempotencyStoreException, Boolean> onRenewFailed) {
        this.store = store;
        this.lease = lease;
        this.leaseNanos = lease.toNanos();
        this.ticker = ticker;
        this.onRenewFailed = onRenewFailed;
        this.intervalNanos = interval.toNanos();
        this.batchDelayNanos = Math.min(intervalNanos / 2, TimeUnit.MILLISECONDS.toNanos(MAX_BATCH_DELAY_MILLIS));
    }

    /**
     * Starts {@code heartbeat}: its renewals begin within one interval from now, if its action still
     * runs. The batch's opening time is read before the compare-and-set that opens it, and every other
     * heartbeat of that batch returns from here after that compare-and-set (it saw the batch open, or
     * lost the race to open it): so each action starts after its batch opened. One clock reading per
     * batch, and none in the call's own object.
     */
    void start(Heartbeat heartbeat) {
        Heartbeat head;
        do {
            head = unscheduled.get();
            heartbeat.nextUnscheduled = head;
        } while (!unscheduled.compareAndSet(head, heartbeat));
        if (!batchPending.get()) {
            long now = System.nanoTime();
            if (batchPending.compareAndSet(false, true)) {
                batchOpenedAtNanos = now;
                SharedScheduler.get().schedule(scheduleBatch, batchDelayNanos, TimeUnit.NANOSECONDS);
            }
        }
    }

    IdempotencyStore store() {
        return store;
    }

    Duration lease() {
        return lease;
    }

    long leaseNanos() {
        return leaseNanos;
    }

    Ticker ticker() {
        return ticker;
    }

    long intervalNanos() {
        return intervalNanos;
    }

    BiConsumer<IdempotencyStoreException, Boolean> onRenewFailed() {
        return onRenewFailed;
    }

    private void scheduleBatch() {
        long openedAt = batchOpenedAtNanos;
        // Cleared before the stack is taken: a heartbeat pushed after this line either is in the stack
        // taken below or schedules a batch of its own.
        batchPending.set(false);
        Heartbeat heartbeat = unscheduled.getAndSet(null);
        long firstDelayNanos = Math.max(0, intervalNanos - (System.nanoTime() - openedAt));
        while (heartbeat != null) {
            Heartbeat next = heartbeat.nextUnscheduled;
            heartbeat.nextUnscheduled = null;
            heartbeat.schedule(firstDelayNanos);
            heartbeat = next;
        }
    }
}
