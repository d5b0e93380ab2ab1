package dev.idemlab.idempotency.internal;

import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The owner's lease renewal while its action runs: a token-checked {@code renew} at every beat of a
 * fixed-rate timer task on the shared scheduler, the first beat an interval after the action started.
 * The timer only triggers: the renewal itself runs on {@link SharedScheduler#storeCalls()}, because
 * a renewal blocked for a whole command timeout on the timer's threads would hold up the renewals of
 * every other holder, and a fault on one part of the store would cost leases on the healthy parts.
 * At most one renewal per heartbeat is in flight, so a stalled store costs one blocked thread per
 * holder, not one per beat: a beat that finds the previous renewal still running is not lost, but
 * folded into one renewal that starts as soon as that one returns, however many beats it overlapped.
 *
 * <p>A renewal that fails with a storage error (a timeout, a dropped connection, an open circuit) is
 * not a lost lease: it is counted and tried again soon (within {@link #RETRY_AFTER_FAILURE_NANOS}, or a
 * quarter of the interval if that is shorter) as well as at the next beat, since the store may be back
 * long before that beat (a circuit opens for a second, a reconnection takes milliseconds): two short
 * outages on two beats must not cost a live holder its lease. The lease is lost only when the
 * store says this token no longer holds it ({@code renew} answers {@code false}), or when the lease the
 * holder last confirmed has run out by the coordinator's own ticker: the start of the last renewal
 * that succeeded (at first, of the reserve) plus the lease. Counting from the start of the call that
 * confirmed it keeps that bound on the safe side of the store's clock, which set the expiry later.
 * Once the lease ran out by that bound the holder can no longer tell whether another attempt took the
 * key over meanwhile, so its outcome says so whatever a later renewal answers. But renewing goes on
 * until the store says the token no longer holds: renewals whose replies were lost may have kept the
 * lease alive in the store, and a holder that stopped renewing then would let a retry take the key over
 * after the fault, while its action still runs. A renewal is token-checked, so it never extends
 * another attempt's lease; the complete is token-checked too, and lands if nobody took the key.
 *
 * <p>The rate is fixed rather than the delay so that a renewal that took a whole timeout to fail does
 * not push the next one a full interval further: the next starts on the original schedule, or at once
 * when that moment passed while the slow one was in flight.
 *
 * <p>A heartbeat is not put on the timer when it starts: {@link Heartbeats} does that in batches, for
 * the heartbeats whose action is still running a short while later, so that the many calls whose
 * action returns within milliseconds never touch the timer or the ticker. What every heartbeat of a
 * coordinator shares (store, lease, interval, ticker, what to do with a failed renewal) lives in its
 * {@link Heartbeats}; the owner's attempt is its own heartbeat ({@link OwnerAttempt} extends this
 * class), so a call that holds a key is one object, not two. Thread-safe.
 */
abstract class Heartbeat {

    private static final Logger LOG = LoggerFactory.getLogger(Heartbeat.class);
    private static final VarHandle CONFIRMED_AT;
    private static final VarHandle RENEWAL;
    /** After a renewal failed, how soon the next is tried (at most; a quarter of the interval if shorter). */
    static final long RETRY_AFTER_FAILURE_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    /** No renewal in flight. */
    private static final int IDLE = 0;
    /** A renewal in flight, and no beat came meanwhile. */
    private static final int IN_FLIGHT = 1;
    /** A renewal in flight, and a beat came meanwhile: another renewal follows it at once. */
    private static final int BEAT_MISSED = 2;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            CONFIRMED_AT = lookup.findVarHandle(Heartbeat.class, "confirmedAtNanos", long.class);
            RENEWAL = lookup.findVarHandle(Heartbeat.class, "renewal", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final String namespace;
    final String token;
    /** The next heartbeat waiting for the same batch; written before it is published, read by the batch. */
    Heartbeat nextUnscheduled;
    /**
     * When the lease was last confirmed (a ticker reading: the start of the reserve, then of each
     * renewal that succeeded). A plain field written once by the constructor, so that a call whose
     * action returns fast pays no fence for it; later written by the timer with release semantics
     * and read with acquire semantics, through {@link #CONFIRMED_AT}.
     */
    @SuppressWarnings("unused") // reached through CONFIRMED_AT
    private long confirmedAtNanos;
    /**
     * {@link #IDLE}, {@link #IN_FLIGHT} or {@link #BEAT_MISSED}: whether a renewal was handed to the
     * store-call pool and has not returned, and whether a beat came meanwhile. Moved by the beats and
     * by the renewal; never written on the path of a fast action.
     */
    @SuppressWarnings("unused") // reached through RENEWAL
    private volatile int renewal;
    private volatile ScheduledFuture<?> renewals;
    /** The beat, for a retry after a failed renewal; set with {@link #renewals}, before the first beat. */
    private volatile Runnable retryBeat;
    private volatile boolean stopped;
    private volatile boolean lost;
    /** The action returned and its result is being stored: a renewal that finds the key no longer pending is not news. */
    private volatile boolean completing;
    /** Whether a renewal failed since the lease was last confirmed; written by the one renewal in flight. */
    private volatile boolean failingSinceConfirmed;

    /**
     * A heartbeat of {@code token}'s reservation of {@code namespace}, not yet started, whose reserve
     * started at {@code reservedAtNanos} (a reading of the coordinator's ticker).
     */
    Heartbeat(String namespace, String token, long reservedAtNanos) {
        this.namespace = namespace;
        this.token = token;
        this.confirmedAtNanos = reservedAtNanos;
    }

    /** What this heartbeat shares with the coordinator's others; not a field, to keep a call's one object small. */
    abstract Heartbeats shared();

    /**
     * Puts the beats on the timer, the first one after {@code firstDelayNanos}, unless the action
     * already returned. Called once, by the batch.
     */
    void schedule(long firstDelayNanos) {
        if (stopped) {
            return;
        }
        // Built here, once per heartbeat that outlives its batch: a fast action never pays for them.
        Runnable renewal = this::renewInFlight;
        Runnable beat = () -> beat(renewal);
        retryBeat = beat;
        // The lease counts from the reserve's first try: a reserve that took a while (a stall waited out
        // within the patience) leaves less of it than an interval would need. Renew within a third of
        // what is left, then at the usual rate.
        long left = (long) CONFIRMED_AT.getAcquire(this) + shared().leaseNanos() - shared().ticker().read();
        long firstDelay = Math.min(firstDelayNanos, Math.max(0, left / 3));
        ScheduledFuture<?> scheduled = SharedScheduler.get().scheduleAtFixedRate(
                beat, firstDelay, shared().intervalNanos(), TimeUnit.NANOSECONDS);
        renewals = scheduled;
        // stop() may have run between the check above and the assignment: then it saw no future to cancel.
        if (stopped) {
            scheduled.cancel(false);
        }
    }

    /**
     * The action returned and the owner is storing its result: renewals go on until {@link #stop()}, and
     * one that finds the record no longer this token's reservation (the complete landed) just stops.
     */
    final void completing() {
        completing = true;
    }

    /** Stops renewing. Renewals that finish after this point change nothing. */
    final void stop() {
        stopped = true;
        ScheduledFuture<?> scheduled = renewals;
        if (scheduled != null) {
            scheduled.cancel(false);
        }
    }

    /**
     * Whether the lease was lost while the action ran: the store said so, or the lease last confirmed
     * had run out by the time of this call, which the owner makes as the action returns. Reads the
     * ticker only for a heartbeat that was put on the timer, never on the path of a fast action.
     */
    final boolean lost() {
        if (!lost && renewals != null) {
            long now = shared().ticker().read();
            if (ranOut(now)) {
                lost = true;
                logRanOut(now, null);
            }
        }
        return lost;
    }

    /**
     * On the timer: hands a renewal to the store-call pool, or, while one is in flight, marks the beat
     * missed so that the renewal in flight is followed by another at once.
     */
    private void beat(Runnable renewalTask) {
        while (!stopped) {
            int state = (int) RENEWAL.getVolatile(this);
            if (state == IDLE && RENEWAL.compareAndSet(this, IDLE, IN_FLIGHT)) {
                start(renewalTask);
                return;
            }
            if (state == BEAT_MISSED || (state == IN_FLIGHT && RENEWAL.compareAndSet(this, IN_FLIGHT, BEAT_MISSED))) {
                return;
            }
        }
    }

    private void start(Runnable renewalTask) {
        try {
            SharedScheduler.storeCalls().execute(renewalTask);
        } catch (RuntimeException rejected) {
            // Not rethrown: a fixed-rate task that throws is never run again. Tried at the next beat.
            RENEWAL.setVolatile(this, IDLE);
            LOG.warn("could not start a renewal of a lease on {}: {}", operation(), rejected.toString());
        }
    }

    /** On the store-call pool: renews, and again at once for each time a beat came meanwhile. */
    private void renewInFlight() {
        boolean failed;
        do {
            failed = renew();
        } while (beatMissedMeanwhile());
        Runnable beat = retryBeat;
        if (failed && !stopped && beat != null) {
            SharedScheduler.get().schedule(beat, Math.min(RETRY_AFTER_FAILURE_NANOS, shared().intervalNanos() / 4),
                    TimeUnit.NANOSECONDS);
        }
    }

    /**
     * Ends the renewal in flight, unless a beat came meanwhile: then it stays in flight and this
     * answers {@code true}, for one more renewal (which returns at once if the heartbeat stopped).
     */
    private boolean beatMissedMeanwhile() {
        while (true) {
            if (RENEWAL.compareAndSet(this, IN_FLIGHT, IDLE)) {
                return false;
            }
            if (RENEWAL.compareAndSet(this, BEAT_MISSED, IN_FLIGHT)) {
                return true;
            }
        }
    }

    /**
     * Whether the lease this holder last confirmed still lasts by its own ticker, read now, and the store
     * never said otherwise. Until it runs out the store's lease has not ended either (it was set later,
     * by the store's clock), so no other attempt can have reserved the key: what the key holds is this
     * holder's doing.
     */
    final boolean leaseStillConfirmed() {
        return !lost && !ranOut(shared().ticker().read());
    }

    /**
     * Whether the renewals still get through: the last one that succeeded (at first, the reserve)
     * started less than a lease ago by the holder's ticker. Unlike {@link #leaseStillConfirmed()} this
     * forgets a lease that ran out by the holder's clock once a later renewal succeeds: the store then
     * still holds this token's reservation (a renewal of an expired or taken-over key fails), so
     * whatever keeps the key for this holder, a settle of its completion, is still worth going on with.
     */
    final boolean renewalsGetThrough() {
        return !ranOut(shared().ticker().read());
    }

    /** One renewal; {@code true} when it failed with a storage error and the lease may still be held. */
    private boolean renew() {
        if (stopped) {
            return false;
        }
        Heartbeats shared = shared();
        long startedAt = shared.ticker().read();
        if (ranOut(startedAt)) {
            ranOutByOwnClock(startedAt, null);
        }
        boolean held;
        try {
            held = shared.store().renew(namespace, token, shared.lease());
        } catch (IdempotencyStoreException e) {
            if (stopped) {
                return false;
            }
            shared.onRenewFailed().accept(e, !failingSinceConfirmed);
            failingSinceConfirmed = true;
            long now = shared.ticker().read();
            if (ranOut(now)) {
                ranOutByOwnClock(now, e);
            }
            return true;
        } catch (RuntimeException e) {
            // An answer, but not this attempt's reservation (an unreadable record, say): nothing vouches for the lease.
            lose(() -> logLost("the store answered with something other than this attempt's reservation: "
                    + e.getMessage()));
            return false;
        }
        if (held) {
            CONFIRMED_AT.setRelease(this, startedAt);
            failingSinceConfirmed = false;
        } else if (completing) {
            // The result was stored meanwhile, or another attempt's record is there: the owner's complete says which.
            LOG.debug("a renewal of {} found the reservation ended while its result was being stored", operation());
            stop();
        } else {
            lose(() -> logLost("the store says another attempt holds the key, or the reservation ran out there"));
        }
        return false;
    }

    private boolean ranOut(long now) {
        return now - (long) CONFIRMED_AT.getAcquire(this) >= shared().leaseNanos();
    }

    /**
     * The lease last confirmed ran out by the holder's own ticker: the outcome is a lost lease from now
     * on, but renewing goes on (see the class comment). Logged once.
     */
    private void ranOutByOwnClock(long now, IdempotencyStoreException lastFailure) {
        if (!stopped && !lost) {
            lost = true;
            logRanOut(now, lastFailure);
        }
    }

    private void lose(Runnable log) {
        if (!stopped) {
            lost = true;
            stop();
            log.run();
        }
    }

    private void logRanOut(long now, IdempotencyStoreException lastFailure) {
        long agoMillis = TimeUnit.NANOSECONDS.toMillis(now - (long) CONFIRMED_AT.getAcquire(this));
        logLost("the lease last confirmed " + agoMillis + " ms ago (a lease of " + shared().lease().toMillis()
                + " ms) ran out before a renewal got through"
                + (lastFailure == null ? "" : "; last failure: " + lastFailure.getMessage())
                + "; renewing on until the store says the token no longer holds");
    }

    private void logLost(String why) {
        LOG.warn("lease on {} lost while its action runs ({}); another attempt may take the key over",
                operation(), why);
    }

    private String operation() {
        return namespace.substring(0, namespace.indexOf(':'));
    }
}
