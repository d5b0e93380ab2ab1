package dev.idemlab.idempotency.internal;

import dev.idemlab.idempotency.ContextualAction;
import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.StorePhase;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Completed;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.StoredResult;
import dev.idemlab.idempotency.spi.TransactionalAction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One call that holds the key: it runs the action with its fencing number while it renews its own
 * lease (it is its own {@link Heartbeat}, so holding a key costs one object), then completes the
 * record with the result, or releases the key when the action failed. Complete and release run even
 * when the caller's thread was interrupted meanwhile (the flag is set aside for the store call and
 * put back), because the effect already happened. Not thread-safe: one per call.
 */
final class OwnerAttempt<T> extends Heartbeat {

    private static final Logger LOG = LoggerFactory.getLogger(OwnerAttempt.class);
    /**
     * How many leases, at most, a completion that failed is retried in the background, renewing the
     * reservation meanwhile. Past the first lease only while the renewals get through: a
     * store whose writes fail while renewals pass (its pool busy, its circuit open, renewals on their
     * own connections) would otherwise see the settle give up, the renewals stop and a retry run the
     * action again, although the store was answering all along; in a total outage nothing is
     * confirmed, and the settle (with its renewals) ends after one lease, as it always did.
     */
    static final int COMPLETION_SETTLE_LEASES = 10;

    private final DefaultIdempotencyCoordinator coordinator;
    private final IdempotentCall call;
    private final CallObservation observed;

    /**
     * {@code reservedAtNanos}: when the reserve that acquired the key started (its first try), by the
     * coordinator's ticker; {@code observed}: the call's observation, whose phases the action, the
     * complete and the release are.
     */
    OwnerAttempt(DefaultIdempotencyCoordinator coordinator, IdempotentCall call, String namespace, String token,
                 long reservedAtNanos, CallObservation observed) {
        super(namespace, token, reservedAtNanos);
        this.coordinator = coordinator;
        this.call = call;
        this.observed = observed;
    }

    @Override
    Heartbeats shared() {
        return coordinator.heartbeats();
    }

    /**
     * Runs the action as the key's holder, with the reservation's {@code fence}, and stores its result
     * through {@code codec}; returns the value and outcome as {@code answer} builds them.
     */
    <E extends Exception, R> R run(long fence, ResultCodec<T> codec, ContextualAction<T, E> action,
                                   DefaultIdempotencyCoordinator.Answer<T, R> answer) throws E {
        CoordinatorCounters counters = coordinator.counters();
        if (Thread.currentThread().isInterrupted()) {
            withoutInterrupt(this::release);
            throw coordinator.interrupted(call, null);
        }
        if (action instanceof TransactionalAction<T, E> local) {
            return new LocalCompletion<>(this, coordinator, call).run(fence, codec, local, answer);
        }
        coordinator.heartbeats().start(this);
        T value = runAction(fence, action);
        // Judged as the action returned: a complete that takes long cannot lose a lease that held until then.
        // The renewals go on until the result is stored, though (or its settle gave up): a complete that
        // waits out a fault must not let the store's lease end meanwhile, nor a retry run the action again.
        boolean leaseLost = lost();
        completing();
        boolean kept = store(codec, value);
        Outcome outcome = leaseLost || !kept ? Outcome.LEASE_LOST : Outcome.EXECUTED;
        counters.outcome(outcome);
        return answer.of(value, outcome);
    }

    /** Runs the action while renewing the lease; when it throws, stops renewing and releases the key. */
    private <E extends Exception> T runAction(long fence, ContextualAction<T, E> action) throws E {
        CallObservation acting = observed.phase(CallObservation.Phase.ACTION);
        T value;
        try (CallObservation.Scope scope = acting.openScope()) {
            value = action.run(coordinator.context(call, namespace, fence, action));
        } catch (Throwable failure) {
            acting.failed("failed", failure);
            stop();
            withoutInterrupt(this::release);
            coordinator.counters().outcome(Outcome.ACTION_FAILED);
            throw failure;
        }
        acting.stop("ok");
        return value;
    }

    /** Encodes and completes, with the interrupt flag set aside; {@code false} when this attempt was stale. */
    private boolean store(ResultCodec<T> codec, T value) {
        CallObservation completing = observed.phase(CallObservation.Phase.COMPLETE);
        // withoutInterrupt's steps written out: a lambda capturing the result would be one more object per call.
        boolean interrupted = Thread.interrupted();
        boolean kept;
        try {
            kept = complete(coordinator.encoder().encode(codec, value));
        } catch (RuntimeException | Error e) {
            completing.failed("failed", e);
            stop();
            throw e;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        completing.stop(kept ? "stored" : "stale");
        return kept;
    }

    /**
     * Stores the result. {@code false} when another attempt holds or completed the key (this one is
     * stale); a store that keeps failing leaves the reservation to run out, counted as a duplicate
     * risk, and the write is settled in the background once the store answers (for up to
     * {@link #COMPLETION_SETTLE_LEASES} leases, the reservation renewed meanwhile). A retry after a
     * timed-out try that finds the key completed may be finding that very try, landed: it counts as
     * written when the record holds this call's fingerprint and this result and the lease still lasts
     * (see {@link #completedByAnEarlierTry}). Stops the renewals once the record is written or
     * found to be another attempt's, or, when the write is left to the background, once that settles.
     */
    private boolean complete(StoredResult stored) {
        IdempotencyStore store = coordinator.storeClient();
        IdempotencyConfig config = coordinator.config();
        CoordinatorCounters counters = coordinator.counters();
        String fingerprint = call.fingerprint().hex();
        try {
            boolean written;
            long start = coordinator.storeCalls().now();
            try {
                written = store.complete(namespace, token, fingerprint, stored, config.ttl());
            } catch (IdempotencyStoreException first) {
                written = coordinator.storeCalls().afterFailure(start, first,
                        () -> store.complete(namespace, token, fingerprint, stored, config.ttl()))
                        || completedByAnEarlierTry(fingerprint, stored);
            }
            stop();
            if (written) {
                return true;
            }
            counters.stale();
            LOG.warn("the lease of {} ran out while its action ran and another attempt holds or completed the key; "
                    + "this attempt's result is not stored", call.operation());
            return false;
        } catch (IdempotencyStoreException e) {
            coordinator.countStorageError(StorePhase.COMPLETE, "storing the result; the write is retried in the "
                    + "background, renewing the reservation meanwhile, and if it gives up the lease runs out", e);
            counters.duplicateRisk();
            coordinator.storeCalls().settleLater("completing after a failed complete", config.lease(),
                    config.lease().multipliedBy(COMPLETION_SETTLE_LEASES), this::renewalsGetThrough,
                    () -> store.complete(namespace, token, fingerprint, stored, config.ttl()), this::stop);
            return true;
        }
    }

    /**
     * Only a retry (an earlier try timed out) gets here, so the completed record it found may be its own
     * first try's: then it holds this call's fingerprint and this very result. An equal record is not
     * proof, though: if that try never landed and the lease ended meanwhile, another attempt may have
     * reserved, run and completed with an equal result. So the record counts as this attempt's only
     * while the lease it last confirmed still lasts by its own ticker, read after the lookup: no other
     * attempt can take the key before the store's lease ends. Otherwise, and when the store cannot
     * answer, the completion counts as stale, as before this look.
     */
    private boolean completedByAnEarlierTry(String fingerprint, StoredResult stored) {
        try {
            boolean equal = coordinator.storeClient().lookup(namespace).orElse(null) instanceof Completed completed
                    && completed.fingerprint().equals(fingerprint) && completed.result().equals(stored);
            if (equal && !leaseStillConfirmed()) {
                LOG.debug("a completed record of {} equal to this attempt's was found after its lease ran out: "
                        + "another attempt may have written it", call.operation());
                return false;
            }
            return equal;
        } catch (RuntimeException e) {
            LOG.debug("could not read whether a retried completion of {} landed on an earlier try: {}",
                    call.operation(), e.toString());
            return false;
        }
    }

    /**
     * Removes the marker so that a retry runs the action. A {@code false} after a timed-out try is
     * stale only if another attempt's record is there: an absent one means that try landed. A release
     * that keeps failing is settled in the background (token-checked), whichever error came last, so
     * that a retry does not wait out the lease on a marker nobody holds.
     */
    boolean release() {
        CallObservation releasing = observed.phase(CallObservation.Phase.RELEASE);
        try {
            releasing.stop(releaseOnce());
        } catch (RuntimeException | Error e) {
            releasing.failed("failed", e);
            throw e;
        }
        return true;
    }

    /** {@link #release()}'s steps: {@code released}, {@code stale}, or {@code settling} when left to the background. */
    private String releaseOnce() {
        IdempotencyStore store = coordinator.storeClient();
        long start = coordinator.storeCalls().now();
        try {
            boolean released;
            try {
                released = store.release(namespace, token);
            } catch (IdempotencyStoreException first) {
                released = coordinator.storeCalls().afterFailure(start, first, () -> store.release(namespace, token))
                        || releasedByAnEarlierTry();
            }
            if (!released) {
                coordinator.counters().stale();
                return "stale";
            }
            return "released";
        } catch (IdempotencyStoreException e) {
            coordinator.countStorageError(call, StorePhase.RELEASE, e);
            coordinator.storeCalls().settleLater("releasing after a failed release", coordinator.config().lease(),
                    () -> store.release(namespace, token));
            return "settling";
        }
    }

    /** After a timed-out try, a marker that is gone was removed by that try (or ran out): nobody else's was touched. */
    private boolean releasedByAnEarlierTry() {
        try {
            return coordinator.storeClient().lookup(namespace).isEmpty();
        } catch (RuntimeException e) {
            LOG.debug("could not read whether a retried release of {} landed on an earlier try: {}",
                    call.operation(), e.toString());
            return false;
        }
    }

    /** Runs a store call with the interrupt flag set aside, and puts the flag back. */
    static boolean withoutInterrupt(java.util.function.BooleanSupplier storeCall) {
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
