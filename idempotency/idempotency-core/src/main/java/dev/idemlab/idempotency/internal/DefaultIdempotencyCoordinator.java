package dev.idemlab.idempotency.internal;

import dev.idemlab.idempotency.ContextualAction;
import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyContext;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotencyInterruptedException;
import dev.idemlab.idempotency.IdempotencyRecordUnreadableException;
import dev.idemlab.idempotency.IdempotencyStats;
import dev.idemlab.idempotency.IdempotencyStoreUnavailableException;
import dev.idemlab.idempotency.IdempotentAction;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.StoreFailureMode;
import dev.idemlab.idempotency.StorePhase;
import dev.idemlab.idempotency.Ticker;
import dev.idemlab.idempotency.spi.CompletionNotifications;
import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Pending;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.spi.StoreDescription;
import dev.idemlab.idempotency.spi.StoredResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * The coordinator: reserve, run, complete; or replay, wait, refuse. See DESIGN section 3 for the
 * state machine. The owner's side of a call lives in {@link OwnerAttempt}, the waiter's in
 * {@link WaitForHolder} (driven by {@link InFlightWait} for {@code call}, by {@link AsyncCall} for
 * {@code callAsync}, which share every other decision through this class too), and how a slow or
 * failing store is called in {@link StoreCalls}. Thread-safe: all shared state lives in the store
 * and in the counters.
 */
public final class DefaultIdempotencyCoordinator implements IdempotencyCoordinator {

    private static final Logger LOG = LoggerFactory.getLogger(DefaultIdempotencyCoordinator.class);

    private final IdempotencyStore store;
    private final IdempotencyConfig config;
    private final StoreDescription storeDescription;
    private final DownstreamKeys downstreamKeys;
    private final CompletionNotifications notifications;
    private final InFlightWait inFlightWait;
    private final CoordinatorCounters counters;
    private final OwnerTokens tokens = new OwnerTokens();
    private final StoreCalls storeCalls;
    private final ResultEncoder encoder;
    private final Ticker ticker;
    private final Heartbeats heartbeats;
    private final Replays replays;
    private final RetryAfterHint retryAfterHint;
    private final ObservedCalls observations;

    /**
     * @param meterRegistry a Micrometer {@code MeterRegistry}, or {@code null} for none; typed as
     *     {@code Object} so that this class loads without Micrometer on the class path
     * @param observationRegistry a Micrometer {@code ObservationRegistry}, or {@code null} for none
     *     (then no call allocates anything for it); typed as {@code Object} for the same reason
     */
    public DefaultIdempotencyCoordinator(IdempotencyStore store, IdempotencyConfig config, Ticker ticker,
                                         Object meterRegistry, Object observationRegistry) {
        this.store = store;
        this.config = config;
        this.storeDescription = store.describe();
        this.downstreamKeys = new DownstreamKeys(store.keyPrefix());
        this.counters = new CoordinatorCounters(meterRegistry == null
                ? CoordinatorCounters.Sink.NONE
                : new MicrometerMeters(meterRegistry, storeDescription.name()));
        this.observations = observationRegistry == null
                ? ObservedCalls.NONE : new MicrometerObservations(observationRegistry, storeDescription.name());
        this.ticker = ticker;
        this.storeCalls = new StoreCalls(ticker, config.storePatience());
        this.encoder = new ResultEncoder(config.maxResultBytes(), counters);
        this.retryAfterHint = new RetryAfterHint(config.lease(), config.expectedDuration());
        this.replays = new Replays(config.policy(), counters, retryAfterHint);
        this.heartbeats = new Heartbeats(store, config.lease(), config.heartbeatInterval(), ticker,
                (e, firstSinceConfirmed) -> {
                    if (firstSinceConfirmed) {
                        countStorageError(StorePhase.RENEW, "renewing a lease; tried again soon and at every "
                                + "heartbeat until the store answers", e);
                    } else {
                        // Counted as every other, logged once per outage: a long action would log a line per retry.
                        counters.storageError(StorePhase.RENEW);
                        LOG.debug("renewing a lease failed again: {}", e.getMessage());
                    }
                });
        this.notifications = CompletionNotifications.of(store);
        this.inFlightWait = new InFlightWait(notifications);
    }

    @Override
    public <T, E extends Exception> IdempotentResult<T> call(IdempotentCall call, ResultCodec<T> codec,
                                                             ContextualAction<T, E> action) throws E {
        return answer(call, codec, action, IdempotentResult::new);
    }

    @Override
    public <T, E extends Exception> T execute(IdempotentCall call, ResultCodec<T> codec,
                                              ContextualAction<T, E> action) throws E {
        return answer(call, codec, action, (value, outcome) -> value);
    }

    /**
     * What a call returns, built from the value and how it was produced: the {@link IdempotentResult}
     * for {@code call}, the bare value for {@code execute}. Both are constants, so an {@code execute}
     * that runs the action allocates no result wrapper.
     */
    @FunctionalInterface
    interface Answer<T, R> {
        R of(T value, Outcome outcome);
    }

    private <T, E extends Exception, R> R answer(IdempotentCall call, ResultCodec<T> codec,
                                                 ContextualAction<T, E> action, Answer<T, R> answer) throws E {
        if (!call.hasKey()) {
            counters.outcome(Outcome.BYPASSED);
            return answer.of(action.run(
                    new IdempotencyContext(call.operation(), null, IdempotencyContext.NO_FENCE, null,
                            call.fingerprint().hex())), Outcome.BYPASSED);
        }
        if (Thread.currentThread().isInterrupted()) {
            throw interrupted(call, null);
        }
        CallObservation observed = observations.start(call); // NONE, allocating nothing, unless observed
        R result;
        try (CallObservation.Scope scope = observed.openScope()) {
            result = callWithReservation(call, codec, action, observed.answering(answer), observed);
        } catch (IdempotencyRecordUnreadableException unreadable) {
            observed.failed(unreadable);
            throw refused(unreadable);
        } catch (Throwable failure) {
            observed.failed(failure);
            throw failure;
        }
        observed.answered();
        return result;
    }

    /** Counts and logs a record the store cannot read, which refuses the call. */
    IdempotencyRecordUnreadableException refused(IdempotencyRecordUnreadableException unreadable) {
        counters.outcome(Outcome.RECORD_UNREADABLE);
        LOG.error("{}", unreadable.getMessage());
        return unreadable;
    }

    @Override
    public <T, E extends Exception> CompletionStage<IdempotentResult<T>> callAsync(
            IdempotentCall call, ResultCodec<T> codec, ContextualAction<T, E> action, Executor executor) {
        if (!call.hasKey()) {
            return IdempotencyCoordinator.super.callAsync(call, codec, action, executor);
        }
        return new AsyncCall<>(this, call, codec, action, executor, tokens.next(), observations.start(call)).start();
    }

    /** Reserve first, then run, or find out what the holder of the key did; each step a phase of {@code observed}. */
    private <T, E extends Exception, R> R callWithReservation(IdempotentCall call, ResultCodec<T> codec,
            ContextualAction<T, E> action, Answer<T, R> answer, CallObservation observed) throws E {
        String token = tokens.next();
        String namespace = call.namespace(); // built once: each build is a string and its bytes
        WaitForHolder waiting = null;
        while (true) {
            Reservation reservation;
            long start = storeCalls.now();
            try {
                reservation = observedReserve(call, namespace, token, start, observed);
            } catch (IdempotencyStoreException e) {
                return shaped(answer, reserveFailed(call, token, codec, action, e));
            }
            if (reservation instanceof Reservation.Acquired acquired) {
                return new OwnerAttempt<T>(this, call, namespace, token, start, observed)
                        .run(acquired.fence(), codec, action, answer);
            }
            IdempotencyRecord found = ((Reservation.Found) reservation).record();
            IdempotentResult<T> settled = replays.answerFound(call, found, codec, waiting != null);
            if (settled != null) {
                return shaped(answer, settled);
            }
            if (waiting == null) {
                waiting = new WaitForHolder(this, call);
            }
            IdempotentResult<T> waited = observedWait(call, (Pending) found, waiting, codec, observed);
            if (waited != null) {
                return shaped(answer, waited);
            }
            // The holder released the key, its lease ran out, or the store kept failing past it: contend again.
        }
    }

    /** {@link #reserve}, observed as a phase of {@code observed}. */
    Reservation observedReserve(IdempotentCall call, String namespace, String token, long start,
                                CallObservation observed) {
        CallObservation phase = observed.phase(CallObservation.Phase.RESERVE);
        Reservation reservation;
        try {
            reservation = reserve(call, namespace, token, start);
        } catch (RuntimeException e) {
            phase.failed("store-failed", e);
            throw e;
        }
        phase.stop(reservation instanceof Reservation.Acquired ? "acquired" : "found");
        return reservation;
    }

    /** Waits for the holder of {@code found}, observed: the replayed result, or {@code null} to contend again. */
    private <T> IdempotentResult<T> observedWait(IdempotentCall call, Pending found, WaitForHolder waiting,
                                                 ResultCodec<T> codec, CallObservation observed) {
        CallObservation phase = observed.phase(CallObservation.Phase.WAIT);
        IdempotentResult<T> waited;
        try {
            waited = replays.waitEnded(call, inFlightWait.await(call, found, waiting), codec);
        } catch (RuntimeException e) {
            phase.failed(e);
            throw e;
        }
        phase.stop(waited == null ? "contend" : "replayed");
        return waited;
    }

    /**
     * One reserve, tried again within the patience while it times out. The first try is made here, so
     * that a call whose store answers builds no supplier. {@code start} is the ticker's reading before
     * it (the patience counts from it, and so does an acquired reservation's lease, as the holder sees it).
     *
     * @param namespace {@code call}'s, as the caller built it once
     * @throws IdempotencyStoreException when the store failed
     */
    Reservation reserve(IdempotentCall call, String namespace, String token, long start) {
        try {
            return store.reserve(namespace, token, call.fingerprint().hex(), config.lease());
        } catch (IdempotencyStoreException first) {
            return storeCalls.afterFailure(start, first,
                    () -> store.reserve(namespace, token, call.fingerprint().hex(), config.lease()));
        }
    }

    private static <T, R> R shaped(Answer<T, R> answer, IdempotentResult<T> result) {
        return answer.of(result.value(), result.outcome());
    }

    /**
     * A reserve that failed may still have landed (a timed-out reply, not a refused connection), and
     * then its marker would make every retry wait out the lease. That holds when any try of it timed
     * out, whatever the last one reported: {@link IdempotencyStoreException#mayHaveLanded()} counts the
     * earlier tries {@link StoreCalls} attaches. So once the caller has been answered,
     * the marker is settled in the background: completed with the result after failing open (a retry
     * then replays), released after failing closed or after the action failed.
     */
    <T, E extends Exception> IdempotentResult<T> reserveFailed(
            IdempotentCall call, String token, ResultCodec<T> codec, ContextualAction<T, E> action,
            IdempotencyStoreException error) throws E {
        boolean mayHaveLanded = error.mayHaveLanded() || Thread.currentThread().isInterrupted();
        if (Thread.currentThread().isInterrupted()) {
            if (mayHaveLanded) {
                releaseLater(call, token);
            }
            throw interrupted(call, error);
        }
        IdempotentResult<T> result;
        try {
            result = storageFailure(call, StorePhase.RESERVE, error, token, action);
        } catch (Throwable failure) {
            if (mayHaveLanded) {
                releaseLater(call, token);
            }
            throw failure;
        }
        if (mayHaveLanded) {
            StoredResult stored = encoder.encode(codec, result.value());
            storeCalls.settleLater("completing a reservation that may have landed late", config.lease(),
                    () -> store.complete(call.namespace(), token, call.fingerprint().hex(), stored, config.ttl()));
        }
        return result;
    }

    void releaseLater(IdempotentCall call, String token) {
        storeCalls.settleLater("releasing a reservation that may have landed late", config.lease(),
                () -> store.release(call.namespace(), token));
    }

    /**
     * The store failed: refuse (fail closed), or run the action without a reservation and count it
     * (fail open). The action still gets the downstream key, so a provider that deduplicates makes
     * the effect happen once.
     *
     * @param token the reservation that may have landed, or {@code null}
     */
    private <T, E extends Exception> IdempotentResult<T> storageFailure(
            IdempotentCall call, StorePhase phase, IdempotencyStoreException error, String token,
            ContextualAction<T, E> action) throws E {
        if (Thread.currentThread().isInterrupted()) {
            throw interrupted(call, error);
        }
        countStorageError(call, phase, error);
        if (config.storeFailureMode() == StoreFailureMode.FAIL_CLOSED) {
            counters.outcome(Outcome.FAILED_CLOSED);
            throw new IdempotencyStoreUnavailableException(call.operation(), call.key(), storeDescription.name(),
                    phase, error);
        }
        T value;
        try {
            value = action.run(context(call, call.namespace(), IdempotencyContext.NO_FENCE, action));
        } catch (Throwable failure) {
            counters.outcome(Outcome.ACTION_FAILED);
            throw failure;
        }
        counters.outcome(Outcome.FAILED_OPEN);
        counters.duplicateRisk();
        return new IdempotentResult<>(value, Outcome.FAILED_OPEN);
    }

    /**
     * The context {@code action} runs with; {@code null} for an action that never reads it (a plain
     * {@code IdempotentAction}), which spares every such call the downstream key's hash.
     */
    IdempotencyContext context(IdempotentCall call, String namespace, long fence, ContextualAction<?, ?> action) {
        if (action instanceof IdempotentAction) {
            return null;
        }
        return new IdempotencyContext(call.operation(), call.key(), fence, downstreamKeys.of(namespace),
                call.fingerprint().hex());
    }

    IdempotencyInterruptedException interrupted(IdempotentCall call, Throwable cause) {
        counters.outcome(Outcome.INTERRUPTED);
        return new IdempotencyInterruptedException(call.operation(), call.key(), cause);
    }

    void countStorageError(IdempotentCall call, StorePhase phase, RuntimeException error) {
        countStorageError(phase, (config.storeFailureMode() == StoreFailureMode.FAIL_OPEN
                ? "failing open" : "failing closed") + " for " + call.operation(), error);
    }

    void countStorageError(StorePhase phase, String consequence, RuntimeException error) {
        counters.storageError(phase);
        LOG.warn("idempotency store {} failed during {} ({}): {}", storeDescription.name(), phase, consequence,
                error.getMessage());
    }

    IdempotencyStore storeClient() {
        return store;
    }

    /** What found records answer, shared with the asynchronous path. */
    Replays replays() {
        return replays;
    }

    CompletionNotifications notifications() {
        return notifications;
    }

    Ticker ticker() {
        return ticker;
    }

    StoreCalls storeCalls() {
        return storeCalls;
    }

    CoordinatorCounters counters() {
        return counters;
    }

    Heartbeats heartbeats() {
        return heartbeats;
    }

    ResultEncoder encoder() {
        return encoder;
    }

    /** What a 409 tells its caller to wait, from the holder's age and the expected duration. */
    RetryAfterHint retryAfterHint() {
        return retryAfterHint;
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
