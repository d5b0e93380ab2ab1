package dev.idemlab.idempotency;

import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.spi.StoreDescription;
import dev.idemlab.idempotency.spi.StoredResult;

import java.time.Duration;
import java.util.Optional;

/**
 * A store whose server is gone: every call fails the way a network store's client fails. The
 * real outage (a stopped server) is tested with each network store; this one isolates the
 * coordinator's fail-open and fail-closed rules.
 */
final class UnreachableStore implements IdempotencyStore {

    private IdempotencyStoreException refused(String namespace) {
        return new IdempotencyStoreException("unreachable", namespace, IdempotencyStoreException.Failure.UNREACHABLE,
                "connection refused", null);
    }

    @Override
    public Reservation reserve(String namespace, String token, String fingerprint, Duration lease) {
        throw refused(namespace);
    }

    @Override
    public boolean renew(String namespace, String token, Duration lease) {
        throw refused(namespace);
    }

    @Override
    public boolean complete(String namespace, String token, String fingerprint, StoredResult result, Duration ttl) {
        throw refused(namespace);
    }

    @Override
    public boolean release(String namespace, String token) {
        throw refused(namespace);
    }

    @Override
    public Optional<IdempotencyRecord> lookup(String namespace) {
        throw refused(namespace);
    }

    @Override
    public StoreDescription describe() {
        return new StoreDescription("unreachable", "none", "nowhere");
    }
}
