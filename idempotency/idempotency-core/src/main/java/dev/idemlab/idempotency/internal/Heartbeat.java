package dev.idemlab.idempotency.internal;

import dev.idemlab.idempotency.spi.IdempotencyStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The owner's lease renewal while its action runs: a token-checked {@code renew} every interval on the
 * shared scheduler, the first one an interval after the action started. The first renewal that fails,
 * because the store failed or because the token no longer holds the key, marks the lease lost and stops
 * the heartbeat; the lease then only bounded how long a dead holder would have blocked the key.
 *
 * <p>A heartbeat is not put on the timer when it starts: {@link Heartbeats} does that in batches, for
 * the heartbeats whose action is still running a short while later, so that the many calls whose
 * action returns within milliseconds never touch the timer. Thread-safe.
 */
final class Heartbeat {

    private static final Logger LOG = LoggerFactory.getLogger(Heartbeat.class);

    private final IdempotencyStore store;
    private final String namespace;
    private final String token;
    private final Duration lease;
    private final long intervalNanos;
    private final long startedAtNanos;
    private final Consumer<RuntimeException> onLost;
    /** The next heartbeat waiting for the same batch; written before it is published, read by the batch. */
    Heartbeat nextUnscheduled;
    private volatile ScheduledFuture<?> renewals;
    private volatile boolean stopped;
    private volatile boolean lost;

    Heartbeat(IdempotencyStore store, String namespace, String token, Duration lease, long intervalNanos,
              long startedAtNanos, Consumer<RuntimeException> onLost) {
        this.store = store;
        this.namespace = namespace;
        this.token = token;
        this.lease = lease;
        this.intervalNanos = intervalNanos;
        this.startedAtNanos = startedAtNanos;
        this.onLost = onLost;
    }

    /**
     * Puts the renewals on the timer, the first one an interval after the start, unless the action
     * already returned. Called once, by the batch.
     */
    void schedule(long nowNanos) {
        if (stopped) {
            return;
        }
        long firstDelay = Math.max(0, intervalNanos - (nowNanos - startedAtNanos));
        ScheduledFuture<?> scheduled = SharedScheduler.get().scheduleWithFixedDelay(
                this::renew, firstDelay, intervalNanos, TimeUnit.NANOSECONDS);
        renewals = scheduled;
        // stop() may have run between the check above and the assignment: then it saw no future to cancel.
        if (stopped) {
            scheduled.cancel(false);
        }
    }

    /** Stops renewing. Renewals that finish after this point change nothing. */
    void stop() {
        stopped = true;
        ScheduledFuture<?> scheduled = renewals;
        if (scheduled != null) {
            scheduled.cancel(false);
        }
    }

    /** Whether a renewal failed while the action ran. */
    boolean lost() {
        return lost;
    }

    private void renew() {
        if (stopped) {
            return;
        }
        String why;
        RuntimeException failure = null;
        try {
            if (store.renew(namespace, token, lease)) {
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
            onLost.accept(failure);
        }
    }
}
