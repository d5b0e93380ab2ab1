package dev.idemlab.idempotency.tck;

import dev.idemlab.idempotency.Ticker;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A ticker that moves only when a test advances it, for stores that take their time from a
 * {@link Ticker}. Thread-safe.
 */
public final class ManualTicker implements Ticker {

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    @Override
    public long read() {
        return nanos.get();
    }

    /** Moves the ticker on by {@code duration}. */
    public void advance(Duration duration) {
        nanos.addAndGet(duration.toNanos());
    }
}
