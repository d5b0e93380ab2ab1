package dev.idemlab.bench.wakeup;

import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.Reservation;

import java.time.Duration;
import java.util.concurrent.Semaphore;

/**
 * A real store that tells the harness when a caller found the key held (so the holder is released
 * only once every waiter waits); the store's notifications pass through. Thread-safe.
 */
final class ObservedStore extends ForwardingIdempotencyStore {

    final Semaphore foundHeld = new Semaphore(0);

    ObservedStore(IdempotencyStore store) {
        super(store);
    }

    @Override
    public Reservation reserve(String namespace, String token, String fingerprint, Duration lease) {
        Reservation answer = super.reserve(namespace, token, fingerprint, lease);
        if (answer instanceof Reservation.Found) {
            foundHeld.release();
        }
        return answer;
    }

    @Override
    public void close() {
        delegate().close();
    }
}
