package dev.idemlab.idempotency.store.redis;

import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.IdempotencyStoreException.Failure;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.spi.StoredResult;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real store that tells the test when a call of a phase (reserve, complete) met a busy server, so
 * that the test changes the cluster back only once the coordinator is riding the failure out, and when
 * a reserve found a record. Thread-safe.
 */
final class WatchedStore extends ForwardingIdempotencyStore {

    private final Map<String, Semaphore> busy = new ConcurrentHashMap<>();

    WatchedStore(IdempotencyStore delegate) {
        super(delegate);
    }

    @Override
    public Reservation reserve(String namespace, String token, String fingerprint, Duration lease) {
        Reservation reservation = watched("reserve", () -> super.reserve(namespace, token, fingerprint, lease));
        if (reservation instanceof Reservation.Found) {
            semaphore("found").release();
        }
        return reservation;
    }

    /** Blocks until a reserve has found a record there. */
    void awaitFound() throws InterruptedException {
        assertThat(semaphore("found").tryAcquire(30, TimeUnit.SECONDS)).as("a reserve that found a record").isTrue();
    }

    @Override
    public boolean complete(String namespace, String token, String fingerprint, StoredResult result, Duration ttl) {
        return watched("complete", () -> super.complete(namespace, token, fingerprint, result, ttl));
    }

    /** Blocks until a call of {@code phase} has met a busy server. */
    void awaitBusy(String phase) throws InterruptedException {
        assertThat(semaphore(phase).tryAcquire(30, TimeUnit.SECONDS)).as("a busy " + phase).isTrue();
    }

    private <T> T watched(String phase, Supplier<T> call) {
        try {
            return call.get();
        } catch (IdempotencyStoreException e) {
            if (e.failure() == Failure.BUSY) {
                semaphore(phase).release();
            }
            throw e;
        }
    }

    private Semaphore semaphore(String phase) {
        return busy.computeIfAbsent(phase, p -> new Semaphore(0));
    }
}
