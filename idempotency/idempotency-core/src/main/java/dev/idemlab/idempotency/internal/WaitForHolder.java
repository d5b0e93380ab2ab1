package dev.idemlab.idempotency.internal;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyInProgressException;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotencyInterruptedException;
import dev.idemlab.idempotency.StorePhase;
import dev.idemlab.idempotency.Ticker;
import dev.idemlab.idempotency.spi.CompletionNotifications.Ending;
import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Completed;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Pending;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The one waiting state machine of a WAIT caller, shared by {@code call} (which parks its thread
 * between steps) and {@code callAsync} (which sets a timer and returns its thread). It decides only
 * what to do next, from the reservation it saw, its deadline, the time, and what the store last
 * said, and it makes the reads itself on the driver's thread; the drivers only sleep and subscribe,
 * so the two paths cannot drift.
 *
 * <p>On a store that notifies, the driver subscribes before the first step, which is a read (so an
 * ending between the reserve and the subscription is not missed); then it sleeps until the store
 * says the reservation ended, the safety poll is due, or the lease it saw runs out (a dead holder
 * sends nothing). A notification that says how the seen reservation ended is the answer without a
 * read. A store without notifications is polled with a doubling pause.
 *
 * <p>A failed read does not end the wait at once. The waiter has just seen an identical request in
 * flight, so running the action now would all but certainly charge twice; it keeps reading (each
 * failure counted as a {@link StorePhase#LOOKUP} storage error) until the lease it saw would have run
 * out, which is when it could have taken the key over anyway. Then it contends for the key again from
 * the reserve, and a store still failing there goes through the store-failure mode.
 *
 * <p>Not thread-safe: one per call, stepped by one driver at a time. The deadline spans every
 * reservation the call waits on, so contending again never extends it.
 */
final class WaitForHolder {

    private static final long LEASE_END_SLACK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /** What the driver does next. */
    sealed interface Step permits Read, Sleep, Replay, Contend, GiveUp { }

    /** Read the record now. */
    record Read() implements Step { }

    /** Sleep up to {@code nanos}, or until the store notifies an ending. */
    record Sleep(long nanos) implements Step { }

    /** The holder completed the key: replay this record (its fingerprint still to be checked). */
    record Replay(Completed record) implements Step { }

    /**
     * Contend for the key again from the reserve: it is free, another attempt holds it, or the store
     * kept failing until the seen lease ended.
     */
    record Contend() implements Step { }

    /** The deadline passed with the key still held: answer in progress. */
    record GiveUp(IdempotencyInProgressException inProgress) implements Step { }

    private static final Read READ = new Read();
    private static final Contend CONTEND = new Contend();

    private final DefaultIdempotencyCoordinator coordinator;
    private final IdempotentCall call;
    private final IdempotencyStore store;
    private final Ticker ticker;
    private final boolean notified;
    private final long deadline;
    private final long minPauseNanos;
    private final long maxPauseNanos;
    private final long safetyPollNanos;
    private final RetryAfterHint retryAfter;
    private Pending current;
    private long leaseEndsAt;
    private long pause;

    /**
     * Starts the deadline now: made when the call first finds the key held. A driver on a store that
     * notifies subscribes before each {@link #watch}.
     */
    WaitForHolder(DefaultIdempotencyCoordinator coordinator, IdempotentCall call) {
        IdempotencyConfig config = coordinator.config();
        this.coordinator = coordinator;
        this.call = call;
        this.store = coordinator.storeClient();
        this.ticker = coordinator.ticker();
        this.notified = coordinator.notifications() != null;
        this.deadline = ticker.read() + config.waitTimeout().toNanos();
        this.minPauseNanos = config.minPollInterval().toNanos();
        this.maxPauseNanos = config.maxPollInterval().toNanos();
        this.safetyPollNanos = config.safetyPollInterval().toNanos();
        this.retryAfter = coordinator.retryAfterHint();
    }

    /** Starts waiting for {@code seen}, a reservation of the same request that a reserve found. */
    Step watch(Pending seen) {
        long now = ticker.read();
        current = seen;
        leaseEndsAt = now + seen.leaseRemaining().toNanos();
        pause = minPauseNanos;
        return notified ? READ : next(now);
    }

    /**
     * Makes the reads {@code step} asks for, on the caller's thread, until the machine asks for a
     * sleep or has an answer; returns that step.
     *
     * @throws IdempotencyInterruptedException when the thread is interrupted during a failed read
     */
    Step readWhileAsked(Step step) {
        while (step instanceof Read) {
            Optional<IdempotencyRecord> record;
            try {
                record = store.lookup(call.namespace());
            } catch (IdempotencyStoreException e) {
                if (Thread.currentThread().isInterrupted()) {
                    throw coordinator.interrupted(call, e);
                }
                step = afterReadFailed(e, ticker.read());
                continue;
            }
            step = afterRead(record, ticker.read());
        }
        return step;
    }

    /**
     * The driver slept; {@code ending} is what the store notified meanwhile, or {@code null}.
     *
     * @throws IdempotencyInterruptedException when the thread was interrupted meanwhile
     */
    Step afterSleep(Ending ending) {
        if (Thread.currentThread().isInterrupted()) {
            throw coordinator.interrupted(call, null);
        }
        if (ending != null && ending.endedReservation(current.token())) {
            return ending instanceof Ending.Completed completed ? new Replay(completed.record()) : CONTEND;
        }
        return READ;
    }

    /** The store answered a read. */
    Step afterRead(Optional<IdempotencyRecord> record, long now) {
        if (record.isEmpty()) {
            return CONTEND;
        }
        if (record.get() instanceof Completed completed) {
            return new Replay(completed);
        }
        if (!(record.get() instanceof Pending pending) || !pending.token().equals(current.token())) {
            return CONTEND; // another attempt's reservation: the reserve says what to do about it
        }
        current = pending;
        leaseEndsAt = now + pending.leaseRemaining().toNanos();
        return next(now);
    }

    /** A read failed. */
    Step afterReadFailed(IdempotencyStoreException error, long now) {
        if (now - leaseEndsAt >= 0) {
            coordinator.countStorageError(StorePhase.LOOKUP,
                    "waiting for an in-flight result; the lease it saw has ended, "
                    + "contending for the key again", error);
            return CONTEND;
        }
        coordinator.countStorageError(StorePhase.LOOKUP, "waiting for an in-flight result, still waiting", error);
        return next(now);
    }

    /** Sleep until the next read, or give up at the deadline. */
    private Step next(long now) {
        long left = deadline - now;
        if (left <= 0) {
            Duration leaseLeft = Duration.ofNanos(Math.max(0, leaseEndsAt - now));
            return new GiveUp(new IdempotencyInProgressException(call.operation(), call.key(),
                    retryAfter.forLeaseRemaining(leaseLeft)));
        }
        if (notified) {
            long untilLeaseEnds = Math.max(0, leaseEndsAt - now) + LEASE_END_SLACK_NANOS;
            return new Sleep(Math.min(Math.min(safetyPollNanos, untilLeaseEnds), left));
        }
        long nap = Math.min(pause, left);
        pause = Math.min(pause * 2, maxPauseNanos);
        return new Sleep(nap);
    }
}
