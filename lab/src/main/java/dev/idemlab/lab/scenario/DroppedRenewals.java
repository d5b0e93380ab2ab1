package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStore;

import java.time.Duration;

/**
 * A store whose {@code renew} acknowledges without renewing: the heartbeat switched off, so the
 * lease really runs out while a long action runs, and the holder never learns it. The library has
 * no switch for this on purpose; the lab fakes the store instead. Thread-safe.
 */
public final class DroppedRenewals extends ForwardingIdempotencyStore {

    private final Timeline timeline;

    /** Renewals dropped silently; closing this wrapper leaves the delegate open. */
    public DroppedRenewals(IdempotencyStore delegate) {
        this(delegate, null);
    }

    DroppedRenewals(IdempotencyStore delegate, Timeline timeline) {
        super(delegate);
        this.timeline = timeline;
    }

    @Override
    public boolean renew(String namespace, String token, Duration lease) {
        if (timeline != null) {
            timeline.record(Timeline.COORDINATOR, Timeline.COORDINATOR,
                    "heartbeat off: renewal dropped, the lease runs on", false);
        }
        return true;
    }
}
