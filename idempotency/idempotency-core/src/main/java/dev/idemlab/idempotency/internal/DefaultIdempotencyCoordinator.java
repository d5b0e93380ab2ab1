package dev.idemlab.idempotency.internal;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotencyInProgressException;
import dev.idemlab.idempotency.IdempotencyKeyReuseException;
import dev.idemlab.idempotency.IdempotencyStats;
import dev.idemlab.idempotency.IdempotencyStoreUnavailableException;
import dev.idemlab.idempotency.IdempotentAction;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotentReplayUnavailableException;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.StoreFailureMode;
import dev.idemlab.idempotency.StorePhase;
import dev.idemlab.idempotency.Ticker;
import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Completed;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Pending;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.spi.StoreDescription;
import dev.idemlab.idempotency.spi.StoredResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * The coordinator: reserve, run, complete; or replay, wait, refuse. See DESIGN section 3 for the
 * state machine. Thread-safe: all shared state lives in the store and in the counters.
 */
public final class DefaultIdempotencyCoordinator implements IdempotencyCoordinator {

    private static final Logger LOG = LoggerFactory.getLogger(DefaultIdempotencyCoordinator.class);
    private static final int COMPLETE_ATTEMPTS = 3;
    private static final Duration COMPLETE_RETRY_PAUSE = Duration.ofMillis(5);

    private final IdempotencyStore store;
    private final IdempotencyConfig config;
    private final StoreDescription storeDescription;
    private final InFlightWait inFlightWait;
    private final CoordinatorCounters counters;
    private final OwnerTokens tokens = new OwnerTokens();

    /**
     * @param meterRegistry a Micrometer {@code MeterRegistry}, or {@code null} for none; typed as
     *     {@code Object} so that this class loads without Micrometer on the class path
     */
    public DefaultIdempotencyCoordinator(IdempotencyStore store, IdempotencyConfig config, Ticker ticker,
                                         Object meterRegistry) {
        this.store = store;
        this.config = config;
        this.storeDescription = store.describe();
        this.counters = new CoordinatorCounters(meterRegistry == null
                ? CoordinatorCounters.Sink.NONE
                : new MicrometerMeters(meterRegistry, storeDescription.name()));
        this.inFlightWait = new InFlightWait(store, config, ticker,
                e -> countStorageError(StorePhase.LOOKUP, "polling for an in-flight result, still waiting", e));
    }

    @Override
    public <T, E extends Exception> IdempotentResult<T> call(IdempotentCall call, ResultCodec<T> codec,
                                                             IdempotentAction<T, E> action) throws E {
        if (!call.hasKey()) {
            counters.outcome(Outcome.BYPASSED);
            return new IdempotentResult<>(action.run(), Outcome.BYPASSED);
        }
        return callWithReservation(call, codec, action);
    }

    /** Reserve first, then run, or find out what the holder of the key did. */
    private <T, E extends Exception> IdempotentResult<T> callWithReservation(
            IdempotentCall call, ResultCodec<T> codec, IdempotentAction<T, E> action) throws E {
        String namespace = call.namespace();
        String token = tokens.next();
        InFlightWait.Deadline deadline = null;
        while (true) {
            Reservation reservation;
            try {
                reservation = store.reserve(namespace, token, call.fingerprint().hex(), config.lease());
            } catch (RuntimeException e) {
                return reserveFailed(call, token, codec, action, e);
            }
            if (reservation instanceof Reservation.Acquired) {
                return runAsOwner(call, namespace, token, codec, action);
            }
            IdempotencyRecord existing = ((Reservation.Found) reservation).record();
            while (existing instanceof Pending pending) {
                requireSameFingerprint(call, pending);
                if (config.policy() == InFlightPolicy.RAISE) {
                    counters.outcome(Outcome.IN_PROGRESS);
                    throw new IdempotencyInProgressException(call.operation(), call.key(), pending.leaseRemaining());
                }
                if (deadline == null) {
                    deadline = inFlightWait.startDeadline();
                }
                try {
                    existing = inFlightWait.awaitChange(call, pending, deadline).orElse(null);
                } catch (IdempotencyInProgressException timedOut) {
                    counters.outcome(Outcome.IN_PROGRESS);
                    throw timedOut;
                } catch (RuntimeException e) {
                    return storageFailure(call, StorePhase.LOOKUP, e, action);
                }
            }
            if (existing instanceof Completed completed) {
                return replay(call, completed, codec, deadline == null ? Outcome.REPLAYED : Outcome.WAITED);
            }
            // The holder released the key or its lease ran out: contend for it again.
        }
    }

    private <T, E extends Exception> IdempotentResult<T> runAsOwner(
            IdempotentCall call, String namespace, String token, ResultCodec<T> codec,
            IdempotentAction<T, E> action) throws E {
        T value;
        try {
            value = action.run();
        } catch (Throwable failure) {
            release(call, namespace, token);
            counters.outcome(Outcome.ACTION_FAILED);
            throw failure;
        }
        complete(call, namespace, token, encode(codec, value));
        counters.outcome(Outcome.EXECUTED);
        return new IdempotentResult<>(value, Outcome.EXECUTED);
    }

    /**
     * Stores the result, trying again on a storage error: a record left pending makes every retry
     * wait out the lease and then run the action again. Completing is safe to repeat: the token
     * check refuses a second write, so a {@code false} after a failed attempt means the first landed.
     */
    private void complete(IdempotentCall call, String namespace, String token, StoredResult stored) {
        for (int attempt = 1; attempt <= COMPLETE_ATTEMPTS; attempt++) {
            try {
                if (!store.complete(namespace, token, stored, config.ttl()) && attempt == 1) {
                    counters.stale();
                    LOG.warn("lease of {} ran out before its action finished; another attempt holds it now, "
                            + "result not stored", call.operation());
                }
                return;
            } catch (RuntimeException e) {
                boolean last = attempt == COMPLETE_ATTEMPTS;
                countStorageError(StorePhase.COMPLETE, last ? "storing the result, giving up: the reservation "
                        + "stays until its lease runs out" : "storing the result, trying again", e);
                if (!last) {
                    LockSupport.parkNanos(COMPLETE_RETRY_PAUSE.toNanos() * attempt);
                }
            }
        }
    }

    private void release(IdempotentCall call, String namespace, String token) {
        try {
            if (!store.release(namespace, token)) {
                counters.stale();
            }
        } catch (RuntimeException e) {
            // The marker stays until its lease runs out; a retry then runs the action.
            countStorageError(call, StorePhase.RELEASE, e);
        }
    }

    private <T, E extends Exception> T runAction(IdempotentAction<T, E> action) throws E {
        try {
            return action.run();
        } catch (Throwable failure) {
            counters.outcome(Outcome.ACTION_FAILED);
            throw failure;
        }
    }

    private <T> StoredResult encode(ResultCodec<T> codec, T value) {
        String json;
        try {
            json = codec.encode(value);
        } catch (RuntimeException e) {
            counters.resultNotStored();
            return StoredResult.notStored("the result could not be encoded: " + e.getMessage());
        }
        int limit = config.maxResultBytes();
        if (json.length() > limit / 3) { // a char is at most 3 UTF-8 bytes: count only when it may matter
            int bytes = json.getBytes(StandardCharsets.UTF_8).length;
            if (bytes > limit) {
                counters.resultNotStored();
                return StoredResult.notStored("the result is " + bytes + " bytes of JSON, over the limit of " + limit);
            }
        }
        return StoredResult.of(json);
    }

    private <T> IdempotentResult<T> replay(IdempotentCall call, Completed completed, ResultCodec<T> codec,
                                           Outcome outcome) {
        requireSameFingerprint(call, completed);
        T value = decode(call, completed, codec);
        counters.outcome(outcome);
        return new IdempotentResult<>(value, outcome);
    }

    private <T> T decode(IdempotentCall call, Completed completed, ResultCodec<T> codec) {
        StoredResult result = completed.result();
        if (!result.isStored()) {
            counters.outcome(Outcome.REPLAY_UNAVAILABLE);
            throw new IdempotentReplayUnavailableException(call.operation(), call.key(), result.notStoredReason(), null);
        }
        try {
            return codec.decode(result.json());
        } catch (RuntimeException e) {
            counters.outcome(Outcome.REPLAY_UNAVAILABLE);
            throw new IdempotentReplayUnavailableException(call.operation(), call.key(),
                    "the stored result cannot be decoded: " + e.getMessage(), e);
        }
    }

    private void requireSameFingerprint(IdempotentCall call, IdempotencyRecord record) {
        String requested = call.fingerprint().hex();
        if (!record.fingerprint().equals(requested)) {
            counters.outcome(Outcome.KEY_REUSE);
            throw new IdempotencyKeyReuseException(call.operation(), call.key(), record.fingerprint(), requested,
                    record instanceof Pending);
        }
    }

    /**
     * A reserve that failed may still have landed (a timed-out reply, not a refused connection), and
     * then its marker would make every retry wait out the lease and charge again. So after failing
     * open the caller finishes the reservation as its owner would, best effort: on a dead store these
     * calls fail fast and change nothing; on a slow one they turn the orphaned marker into a record.
     */
    private <T, E extends Exception> IdempotentResult<T> reserveFailed(
            IdempotentCall call, String token, ResultCodec<T> codec, IdempotentAction<T, E> action,
            RuntimeException error) throws E {
        IdempotentResult<T> result = storageFailure(call, StorePhase.RESERVE, error, () -> {
            try {
                return action.run();
            } catch (Throwable failure) {
                quietly(() -> store.release(call.namespace(), token));
                throw failure;
            }
        });
        quietly(() -> store.complete(call.namespace(), token, encode(codec, result.value()), config.ttl()));
        return result;
    }

    /** A best-effort store call after a storage error was already counted for this call. */
    private void quietly(java.util.function.BooleanSupplier storeCall) {
        try {
            storeCall.getAsBoolean();
        } catch (RuntimeException stillFailing) {
            LOG.debug("best-effort store call failed too: {}", stillFailing.toString());
        }
    }

    private <T, E extends Exception> IdempotentResult<T> storageFailure(
            IdempotentCall call, StorePhase phase, RuntimeException error, IdempotentAction<T, E> action) throws E {
        countStorageError(call, phase, error);
        if (config.storeFailureMode() == StoreFailureMode.FAIL_CLOSED) {
            counters.outcome(Outcome.FAILED_CLOSED);
            throw new IdempotencyStoreUnavailableException(call.operation(), call.key(), storeDescription.name(),
                    phase, error);
        }
        T value = runAction(action);
        counters.outcome(Outcome.FAILED_OPEN);
        return new IdempotentResult<>(value, Outcome.FAILED_OPEN);
    }

    private void countStorageError(IdempotentCall call, StorePhase phase, RuntimeException error) {
        countStorageError(phase, (config.storeFailureMode() == StoreFailureMode.FAIL_OPEN
                ? "failing open" : "failing closed") + " for " + call.operation(), error);
    }

    private void countStorageError(StorePhase phase, String consequence, RuntimeException error) {
        counters.storageError(phase);
        LOG.warn("idempotency store {} failed during {} ({}): {}", storeDescription.name(), phase, consequence,
                error.toString());
    }

    @Override
    public IdempotencyConfig config() {
        return config;
    }

    @Override
    public StoreDescription store() {
        return storeDescription;
    }

    @Override
    public IdempotencyStats stats() {
        return counters.snapshot();
    }
}
