package dev.idemlab.idempotency.internal;

import dev.idemlab.idempotency.spi.IdempotencyStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The owner's lease renewal while its action runs: a token-checked {@code renew} every interval on the
 * shared scheduler. The first renewal that fails, because the store failed or because the token no
 * longer holds the key, marks the lease lost and stops the heartbeat; the lease then only bounded how
 * long a dead holder would have blocked the key. Thread-safe.
 */
final class Heartbeat {

    private static final Logger LOG = LoggerFactory.getLogger(Heartbeat.class);

    private final IdempotencyStore store;
    private final String namespace;
    private final String token;
    private final Duration lease;
    private final java.util.function.Consumer<RuntimeException> onLost;
    private final ScheduledFuture<?> renewals;
    private volatile boolean stopped;
    private volatile boolean lost;

    private Heartbeat(IdempotencyStore store, String namespace, String token, Duration lease, Duration interval,
                      java.util.function.Consumer<RuntimeException> onLost) {
        this.store = store;
        this.namespace = namespace;
        this.token = token;
        this.lease = lease;
        this.onLost = onLost;
        long every = interval.toNanos();
        this.renewals = SharedScheduler.get().scheduleWithFixedDelay(this::renew, every, every, TimeUnit.NANOSECONDS);
    }

    /**
     * Starts renewing {@code token}'s reservation of {@code namespace}. {@code onLost} runs once if the
     * lease is lost, with the store's failure, or {@code null} when the reservation was no longer held.
     */
    static Heartbeat start(IdempotencyStore store, String namespace, String token, Duration lease, Duration interval,
                           java.util.function.Consumer<RuntimeException> onLost) {
        return new Heartbeat(store, namespace, token, lease, interval, onLost);
    }

    /** Stops renewing. Renewals that finish after this point change nothing. */
    void stop() {
        stopped = true;
        renewals.cancel(false);
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
            stopped = true;
            renewals.cancel(false);
            LOG.warn("lease on {} lost while its action runs ({}); another attempt may take the key over", 
                    namespace.substring(0, namespace.indexOf(':')), why);
            onLost.accept(failure);
        }
    }
}
