package dev.idemlab.idempotency.internal;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyInProgressException;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.Ticker;
import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Pending;
import dev.idemlab.idempotency.spi.IdempotencyStore;

import java.util.Optional;
import java.util.concurrent.locks.LockSupport;

/**
 * How a WAIT caller waits for the attempt that holds the key: it polls the store with a doubling
 * pause until the record changes, and gives up at a deadline. Polling needs nothing from a store
 * beyond its lookup, so every store supports waiting the same way. Thread-safe.
 */
final class InFlightWait {

    private final IdempotencyStore store;
    private final Ticker ticker;
    private final long timeoutNanos;
    private final long minPauseNanos;
    private final long maxPauseNanos;

    InFlightWait(IdempotencyStore store, IdempotencyConfig config, Ticker ticker) {
        this.store = store;
        this.ticker = ticker;
        this.timeoutNanos = config.waitTimeout().toNanos();
        this.minPauseNanos = config.minPollInterval().toNanos();
        this.maxPauseNanos = config.maxPollInterval().toNanos();
    }

    /** When a wait that starts now must give up. */
    record Deadline(long atNanos) { }

    Deadline startDeadline() {
        return new Deadline(ticker.read() + timeoutNanos);
    }

    /**
     * Waits until the record under the call's namespace is no longer {@code seen}'s reservation.
     *
     * @return the record that replaced it (completed, or another attempt's reservation), or empty
     *     when the key is free again (released, or the lease ran out)
     * @throws IdempotencyInProgressException when the deadline passes first, or the thread is interrupted
     * @throws RuntimeException whatever the store threw while being polled
     */
    Optional<IdempotencyRecord> awaitChange(IdempotentCall call, Pending seen, Deadline deadline) {
        long pause = minPauseNanos;
        Pending current = seen;
        while (true) {
            long left = deadline.atNanos() - ticker.read();
            if (left <= 0) {
                throw new IdempotencyInProgressException(call.operation(), call.key(), current.leaseRemaining());
            }
            LockSupport.parkNanos(Math.min(pause, left));
            if (Thread.currentThread().isInterrupted()) {
                throw new IdempotencyInProgressException(call.operation(), call.key(), current.leaseRemaining());
            }
            pause = Math.min(pause * 2, maxPauseNanos);
            Optional<IdempotencyRecord> record = store.lookup(call.namespace());
            if (record.isEmpty()) {
                return record;
            }
            if (!(record.get() instanceof Pending pending) || !pending.token().equals(seen.token())) {
                return record;
            }
            current = pending;
        }
    }
}
