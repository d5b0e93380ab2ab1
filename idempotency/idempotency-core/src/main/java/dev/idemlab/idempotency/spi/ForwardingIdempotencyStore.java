package dev.idemlab.idempotency.spi;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A store that passes every call to another one: extend it and override the call to decorate, for
 * instance to time or trace it, or in a test to watch or fault it (a lost reply, a signal to a latch)
 * while the real store still answers. The wrapped store's {@link CompletionNotifications}, if it sends
 * any, are passed on too, so waiters on a decorated store are still woken rather than polling.
 * Thread-safe if the delegate and the overrides are.
 */
public abstract class ForwardingIdempotencyStore implements IdempotencyStore, CompletionNotifications {

    private final IdempotencyStore delegate;

    protected ForwardingIdempotencyStore(IdempotencyStore delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    protected IdempotencyStore delegate() {
        return delegate;
    }

    @Override
    public Reservation reserve(String namespace, String token, String fingerprint, Duration lease) {
        return delegate.reserve(namespace, token, fingerprint, lease);
    }

    @Override
    public boolean renew(String namespace, String token, Duration lease) {
        return delegate.renew(namespace, token, lease);
    }

    @Override
    public boolean complete(String namespace, String token, String fingerprint, StoredResult result, Duration ttl) {
        return delegate.complete(namespace, token, fingerprint, result, ttl);
    }

    @Override
    public boolean release(String namespace, String token) {
        return delegate.release(namespace, token);
    }

    @Override
    public Optional<IdempotencyRecord> lookup(String namespace) {
        return delegate.lookup(namespace);
    }

    @Override
    public boolean notifying() {
        return CompletionNotifications.of(delegate) != null;
    }

    /**
     * Subscribes to the wrapped store's notifications.
     *
     * @throws UnsupportedOperationException when it sends none ({@link #notifying()} is false)
     */
    @Override
    public Subscription subscribe(String namespace, Listener listener) {
        CompletionNotifications notifications = CompletionNotifications.of(delegate);
        if (notifications == null) {
            throw new UnsupportedOperationException(delegate.describe().name() + " sends no notifications");
        }
        return notifications.subscribe(namespace, listener);
    }

    @Override
    public StoreDescription describe() {
        return delegate.describe();
    }

    @Override
    public String keyPrefix() {
        return delegate.keyPrefix();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
