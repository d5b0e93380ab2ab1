package dev.idemlab.idempotency.internal;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyInProgressException;
import dev.idemlab.idempotency.IdempotencyInterruptedException;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.Ticker;
import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Pending;
import dev.idemlab.idempotency.spi.IdempotencyStore;

import java.util.Optional;
import java.util.function.Consumer;
import java.util.concurrent.locks.LockSupport;

/**
 * How a WAIT caller waits for the attempt that holds the key: it polls the store with a doubling
 * pause until the record changes, and gives up at a deadline. Polling needs nothing from a store
 * beyond its lookup, so every store supports waiting the same way.
 *
 * <p>A failed poll does not end the wait at once. The waiter has just seen an identical request in
 * flight, so running the action now would all but certainly charge twice; it keeps polling (each
 * failure counted) until the lease it saw would have run out, which is when it could have taken the
 * key over anyway. Only a store still failing then is handed back to the store-failure mode.
 *
 * <p>Thread-safe.
 */
final class InFlightWait {

    private final IdempotencyStore store;
    private final Ticker ticker;
    private final Consumer<IdempotencyStoreException> survivedStorageError;
    private final long timeoutNanos;
    private final long minPauseNanos;
    private final long maxPauseNanos;

    InFlightWait(IdempotencyStore store, IdempotencyConfig config, Ticker ticker,
                 Consumer<IdempotencyStoreException> survivedStorageError) {
        this.store = store;
        this.ticker = ticker;
        this.survivedStorageError = survivedStorageError;
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
     * @throws IdempotencyInProgressException when the deadline passes first
     * @throws IdempotencyInterruptedException when the thread is interrupted
     * @throws IdempotencyStoreException what the store threw, when it still fails after the seen lease ran out
     */
    Optional<IdempotencyRecord> awaitChange(IdempotentCall call, Pending seen, Deadline deadline) {
        long pause = minPauseNanos;
        Pending current = seen;
        long leaseEndsAt = ticker.read() + seen.leaseRemaining().toNanos();
        while (true) {
            long left = deadline.atNanos() - ticker.read();
            if (left <= 0) {
                throw new IdempotencyInProgressException(call.operation(), call.key(), current.leaseRemaining());
            }
            LockSupport.parkNanos(Math.min(pause, left));
            if (Thread.currentThread().isInterrupted()) {
                throw new IdempotencyInterruptedException(call.operation(), call.key(), null);
            }
            pause = Math.min(pause * 2, maxPauseNanos);
            Optional<IdempotencyRecord> record;
            try {
                record = store.lookup(call.namespace());
            } catch (IdempotencyStoreException e) {
                if (ticker.read() - leaseEndsAt >= 0 || Thread.currentThread().isInterrupted()) {
                    throw e;
                }
                survivedStorageError.accept(e);
                continue;
            }
            if (record.isEmpty()) {
                return record;
            }
            if (!(record.get() instanceof Pending pending) || !pending.token().equals(seen.token())) {
                return record;
            }
            current = pending;
            leaseEndsAt = ticker.read() + pending.leaseRemaining().toNanos();
        }
    }
}
