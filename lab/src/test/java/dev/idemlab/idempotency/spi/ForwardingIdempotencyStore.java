package dev.idemlab.idempotency.spi;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A real store with a seam: every call goes to the delegate, and a test overrides the one call it
 * wants to watch or to fault (a lost reply, a signal to a latch). Not a mock: the delegate answers.
 */
public abstract class ForwardingIdempotencyStore implements IdempotencyStore {

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
    public boolean complete(String namespace, String token, StoredResult result, Duration ttl) {
        return delegate.complete(namespace, token, result, ttl);
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
    public Optional<IdempotencyRecord> putIfAbsent(String namespace, String fingerprint, StoredResult result,
                                                   Duration ttl) {
        return delegate.putIfAbsent(namespace, fingerprint, result, ttl);
    }

    @Override
    public StoreDescription describe() {
        return delegate.describe();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
