package dev.idemlab.idempotency;

import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.Reservation;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real store (the memory store, which notifies) whose server can be made unreachable for the
 * waiters: while {@link #down} is set, lookups and reserves fail as a refused connection does, and
 * the holder's own writes (renew, complete, release) still land, as they would from a holder on
 * another machine whose connection survived. The test learns, through permits, when a lookup was
 * answered and when one failed, and how many subscriptions are open. Thread-safe.
 */
final class OutageStore extends ForwardingIdempotencyStore {

    volatile boolean down;
    /** A permit per lookup the store answered, released after the answer was read. */
    final Semaphore answeredLookups = new Semaphore(0);
    /** A permit per call that failed because the store was down. */
    final Semaphore failures = new Semaphore(0);
    final AtomicInteger openSubscriptions = new AtomicInteger();

    OutageStore(IdempotencyStore delegate) {
        super(delegate);
    }

    @Override
    public Optional<IdempotencyRecord> lookup(String namespace) {
        refuseWhileDown(namespace);
        Optional<IdempotencyRecord> answer = super.lookup(namespace);
        answeredLookups.release();
        return answer;
    }

    @Override
    public Reservation reserve(String namespace, String token, String fingerprint, Duration lease) {
        refuseWhileDown(namespace);
        return super.reserve(namespace, token, fingerprint, lease);
    }

    @Override
    public Subscription subscribe(String namespace, Listener listener) {
        Subscription subscription = super.subscribe(namespace, listener);
        openSubscriptions.incrementAndGet();
        return () -> {
            openSubscriptions.decrementAndGet();
            subscription.close();
        };
    }

    private void refuseWhileDown(String namespace) {
        if (down) {
            failures.release();
            throw new IdempotencyStoreException("outage", namespace, IdempotencyStoreException.Failure.UNREACHABLE,
                    "connection refused", null);
        }
    }

    /** Blocks until {@code count} more lookups were answered. */
    void awaitAnsweredLookups(int count) throws InterruptedException {
        if (!answeredLookups.tryAcquire(count, RaceStage.PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
            throw new AssertionError(count + " lookups were never answered");
        }
    }

    /** Blocks until {@code count} more calls failed on the outage. */
    void awaitFailures(int count) throws InterruptedException {
        if (!failures.tryAcquire(count, RaceStage.PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
            throw new AssertionError(count + " store calls never failed on the outage");
        }
    }
}
