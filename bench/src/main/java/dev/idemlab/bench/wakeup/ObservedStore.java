package dev.idemlab.bench.wakeup;

import dev.idemlab.idempotency.spi.CompletionNotifications;
import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.Reservation;

import java.time.Duration;
import java.util.concurrent.Semaphore;

/**
 * A real store that tells the harness when a caller found the key held (so the holder is released
 * only once every waiter waits), and keeps the store's notifications. Thread-safe.
 */
final class ObservedStore extends ForwardingIdempotencyStore implements CompletionNotifications {

    private final CompletionNotifications notifications;
    final Semaphore foundHeld = new Semaphore(0);

    ObservedStore(IdempotencyStore store) {
        super(store);
        this.notifications = store instanceof CompletionNotifications notifying ? notifying : null;
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
    public Subscription subscribe(String namespace, Listener listener) {
        return notifications == null ? () -> { } : notifications.subscribe(namespace, listener);
    }

    @Override
    public void close() {
        delegate().close();
    }
}
