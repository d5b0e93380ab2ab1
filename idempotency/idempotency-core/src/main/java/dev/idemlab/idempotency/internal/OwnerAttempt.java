package dev.idemlab.idempotency.internal;

import dev.idemlab.idempotency.ContextualAction;
import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.StorePhase;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.StoredResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One call that holds the key: it runs the action with its fencing number while a {@link Heartbeat}
 * renews the lease, then completes the record with the result, or releases the key when the action
 * failed. Complete and release run even when the caller's thread was interrupted meanwhile (the
 * flag is set aside for the store call and put back), because the effect already happened.
 * Not thread-safe: one per call.
 */
final class OwnerAttempt<T> {

    private static final Logger LOG = LoggerFactory.getLogger(OwnerAttempt.class);

    private final DefaultIdempotencyCoordinator coordinator;
    private final IdempotencyConfig config;
    private final IdempotencyStore store;
    private final CoordinatorCounters counters;
    private final IdempotentCall call;
    private final String namespace;
    private final String token;
    private final long fence;
    private final ResultCodec<T> codec;

    OwnerAttempt(DefaultIdempotencyCoordinator coordinator, IdempotentCall call, String namespace, String token,
                 long fence, ResultCodec<T> codec) {
        this.coordinator = coordinator;
        this.config = coordinator.config();
        this.store = coordinator.storeClient();
        this.counters = coordinator.counters();
        this.call = call;
        this.namespace = namespace;
        this.token = token;
        this.fence = fence;
        this.codec = codec;
    }

    <E extends Exception> IdempotentResult<T> run(ContextualAction<T, E> action) throws E {
        if (Thread.currentThread().isInterrupted()) {
            withoutInterrupt(this::release);
            throw coordinator.interrupted(call, null);
        }
        Heartbeat heartbeat = coordinator.heartbeats().start(store, namespace, token, config.lease(),
                coordinator.onLeaseLost());
        T value;
        try {
            value = action.run(coordinator.context(call, namespace, fence, action));
        } catch (Throwable failure) {
            heartbeat.stop();
            withoutInterrupt(this::release);
            counters.outcome(Outcome.ACTION_FAILED);
            throw failure;
        }
        heartbeat.stop();
        StoredResult stored = coordinator.encoder().encode(codec, value);
        boolean kept = withoutInterrupt(() -> complete(stored));
        Outcome outcome = heartbeat.lost() || !kept ? Outcome.LEASE_LOST : Outcome.EXECUTED;
        counters.outcome(outcome);
        return new IdempotentResult<>(value, outcome);
    }

    /**
     * Stores the result. {@code false} when another attempt holds or completed the key (this one is
     * stale); a store that keeps failing leaves the reservation to run out, counted as a duplicate
     * risk, and the write is settled in the background once the store answers.
     */
    private boolean complete(StoredResult stored) {
        String fingerprint = call.fingerprint().hex();
        try {
            boolean written;
            long start = coordinator.storeCalls().now();
            try {
                written = store.complete(namespace, token, fingerprint, stored, config.ttl());
            } catch (IdempotencyStoreException first) {
                written = coordinator.storeCalls().afterFailure(start, first,
                        () -> store.complete(namespace, token, fingerprint, stored, config.ttl()));
            }
            if (written) {
                return true;
            }
            counters.stale();
            LOG.warn("the lease of {} ran out while its action ran and another attempt holds or completed the key; "
                    + "this attempt's result is not stored", call.operation());
            return false;
        } catch (IdempotencyStoreException e) {
            coordinator.countStorageError(StorePhase.COMPLETE, "storing the result; the reservation stays until "
                    + "its lease runs out, and the write is retried in the background", e);
            counters.duplicateRisk();
            coordinator.storeCalls().settleLater("completing after a failed complete", config.lease(),
                    () -> store.complete(namespace, token, fingerprint, stored, config.ttl()));
            return true;
        }
    }

    private boolean release() {
        try {
            if (!coordinator.storeCalls().withPatience(() -> store.release(namespace, token))) {
                counters.stale();
            }
        } catch (IdempotencyStoreException e) {
            // The marker stays until its lease runs out; a retry then runs the action.
            coordinator.countStorageError(call, StorePhase.RELEASE, e);
        }
        return true;
    }

    /** Runs a store call with the interrupt flag set aside, and puts the flag back. */
    private static boolean withoutInterrupt(java.util.function.BooleanSupplier storeCall) {
        boolean interrupted = Thread.interrupted();
        try {
            return storeCall.getAsBoolean();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
