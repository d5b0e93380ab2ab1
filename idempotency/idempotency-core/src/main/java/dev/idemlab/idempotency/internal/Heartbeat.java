package dev.idemlab.idempotency.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The owner's lease renewal while its action runs: a token-checked {@code renew} every interval on the
 * shared scheduler, the first one an interval after the action started. The first renewal that fails,
 * because the store failed or because the token no longer holds the key, marks the lease lost and stops
 * the heartbeat; the lease then only bounded how long a dead holder would have blocked the key.
 *
 * <p>A heartbeat is not put on the timer when it starts: {@link Heartbeats} does that in batches, for
 * the heartbeats whose action is still running a short while later, so that the many calls whose
 * action returns within milliseconds never touch the timer. What every heartbeat of a coordinator
 * shares (store, lease, interval, what to do when the lease is lost) lives in its {@link Heartbeats};
 * the owner's attempt is its own heartbeat ({@link OwnerAttempt} extends this class), so a call that
 * holds a key is one object, not two. Thread-safe.
 */
abstract class Heartbeat {

    private static final Logger LOG = LoggerFactory.getLogger(Heartbeat.class);

    final String namespace;
    final String token;
    /** The next heartbeat waiting for the same batch; written before it is published, read by the batch. */
    Heartbeat nextUnscheduled;
    private volatile ScheduledFuture<?> renewals;
    private volatile boolean stopped;
    private volatile boolean lost;

    /** A heartbeat of {@code token}'s reservation of {@code namespace}, not yet started. */
    Heartbeat(String namespace, String token) {
        this.namespace = namespace;
        this.token = token;
    }

    /** What this heartbeat shares with the coordinator's others; not a field, to keep a call's one object small. */
    abstract Heartbeats shared();

    /**
     * Puts the renewals on the timer, the first one after {@code firstDelayNanos}, unless the action
     * already returned. Called once, by the batch.
     */
    void schedule(long firstDelayNanos) {
        if (stopped) {
            return;
        }
        ScheduledFuture<?> scheduled = SharedScheduler.get().scheduleWithFixedDelay(
                this::renew, firstDelayNanos, shared().intervalNanos(), TimeUnit.NANOSECONDS);
        renewals = scheduled;
        // stop() may have run between the check above and the assignment: then it saw no future to cancel.
        if (stopped) {
            scheduled.cancel(false);
        }
    }

    /** Stops renewing. Renewals that finish after this point change nothing. */
    final void stop() {
        stopped = true;
        ScheduledFuture<?> scheduled = renewals;
        if (scheduled != null) {
            scheduled.cancel(false);
        }
    }

    /** Whether a renewal failed while the action ran. */
    final boolean lost() {
        return lost;
    }

    private void renew() {
        if (stopped) {
            return;
        }
        String why;
        RuntimeException failure = null;
        try {
            if (shared().store().renew(namespace, token, shared().lease())) {
                return;
            }
            why = "the reservation is no longer held by this attempt";
        } catch (RuntimeException e) {
            failure = e;
            why = "the store failed: " + e.getMessage();
        }
        if (!stopped) {
            lost = true;
            stop();
            LOG.warn("lease on {} lost while its action runs ({}); another attempt may take the key over",
                    namespace.substring(0, namespace.indexOf(':')), why);
            shared().onLost().accept(failure);
        }
    }
}
