package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStore;

import java.time.Duration;

/**
 * A store whose {@code renew} acknowledges without renewing: the heartbeat switched off, so the
 * lease really runs out while a long action runs, and the holder never learns it. The library has
 * no switch for this on purpose; the lab fakes the store instead. Thread-safe.
 */
final class DroppedRenewals extends ForwardingIdempotencyStore {

    private final Timeline timeline;

    DroppedRenewals(IdempotencyStore delegate, Timeline timeline) {
        super(delegate);
        this.timeline = timeline;
    }

    @Override
    public boolean renew(String namespace, String token, Duration lease) {
        timeline.record(Timeline.COORDINATOR, Timeline.COORDINATOR, "heartbeat off: renewal dropped, the lease runs on",
                false);
        return true;
    }
}
