package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.StoreFailureMode;
import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.Reservation;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The store as the coordinators see it, watched for one thing the history cannot tell otherwise: whether
 * a reserve that failed as far as its caller was told (it timed out, so it may have landed) did land.
 * A caller that then failed open ran its action without a reservation, but its marker is on the key:
 * the coordinator must settle it, completing it with the result, so that every later call replays that
 * charge. Whether it landed only the server knows, so after such a failure the key is looked up (through
 * the target's witness: connections of the nemesis's own that its network faults spare, straight to a
 * PostgreSQL server or through a Redis proxy of their own, or the store itself; every {@link #POLL}, for
 * three leases at most) until the store answers: a reservation
 * under the call's own token is the proof, and the call records when it was seen and how much of its
 * lease it had left ({@link CallRecord#reserveSeenLanded}). A completed record or another token's
 * reservation proves nothing and ends the watch. Nothing at all is looked up again, every
 * {@link #ABSENT_POLL}, until the watch's end: a reserve can land after its caller gave up on it, where
 * it waited on the server (a PostgreSQL backend stopped with its request unread, then continued, runs
 * it then), and such a late marker is as much the settle's to complete (or to be found completed by).
 *
 * <p>Only calls sent with {@code call} on a caller's own thread are watched ({@link #calling}: the
 * coordinator reserves on that thread, so the failure is tied to its call); a call the watch misses is
 * simply not known to have landed, and the checker then reads it as before. Only calls that fail open
 * are watched: a caller that fails closed charged nothing. The lookups are reads, made on threads of the
 * watch's own. A {@link Watcher} is told when a watch begins and ends (the run plans follow-up calls on
 * the keys whose reserves landed: {@link FailOpenFollowUps}). Thread-safe.
 */
final class LandedReserves extends ForwardingIdempotencyStore implements AutoCloseable {

    /** How often a watched key is looked up while the store does not answer. */
    static final Duration POLL = Duration.ofMillis(50);
    /** How often a watched key the store found empty is looked up again, for a reserve that lands late. */
    static final Duration ABSENT_POLL = Duration.ofMillis(250);

    private static final ThreadLocal<CallRecord> CALLING = new ThreadLocal<>();

    /** Told of each watch: when it begins, and when it has ended, landed ({@link CallRecord#reserveSeenAt()} set) or not. */
    interface Watcher {
        /** A watch of {@code call} begins: told on the caller's thread, before its call returns. */
        void watching(CallRecord call);

        /** The watch of {@code call} ended: its reserve was seen landed, or the store answered otherwise, or the watch gave up. */
        void watchEnded(CallRecord call);
    }

    private final Callers callers;
    private final Watcher watcher;
    private final long watchNanos;
    private final Set<CallRecord> watched = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService lookups = Executors.newScheduledThreadPool(4, runnable -> {
        Thread thread = new Thread(runnable, "nemesis-landed-reserves");
        thread.setDaemon(true);
        return thread;
    });

    private final IdempotencyStore witness;

    /** Watches through {@code delegate} itself. */
    LandedReserves(IdempotencyStore delegate, Callers callers, Duration lease, Watcher watcher) {
        this(delegate, delegate, callers, lease, watcher);
    }

    /**
     * @param witness where the watched keys are looked up: {@code delegate} itself, or a client of the same
     *     records whose connections the faults spare (see {@link NemesisTarget#witness()})
     */
    LandedReserves(IdempotencyStore delegate, IdempotencyStore witness, Callers callers, Duration lease,
                   Watcher watcher) {
        super(delegate);
        this.witness = witness;
        this.callers = callers;
        this.watcher = watcher;
        this.watchNanos = lease.multipliedBy(3).toNanos();
    }

    /** A call to a coordinator, made on the caller's thread. */
    @FunctionalInterface
    interface Call<T> {
        T make() throws Exception;
    }

    /** Makes {@code call}, which sends {@code record}'s call on this thread, so that its reserve is tied to it. */
    static <T> T calling(CallRecord record, Call<T> call) throws Exception {
        CALLING.set(record);
        try {
            return call.make();
        } finally {
            CALLING.remove();
        }
    }

    @Override
    public Reservation reserve(String namespace, String token, String fingerprint, Duration lease) {
        try {
            return super.reserve(namespace, token, fingerprint, lease);
        } catch (IdempotencyStoreException e) {
            CallRecord record = CALLING.get();
            if (e.mayHaveLanded() && record != null && record.onStoreFailure == StoreFailureMode.FAIL_OPEN
                    && watched.add(record)) {
                long until = callers.now() + watchNanos;
                watcher.watching(record);
                lookups.execute(() -> lookUp(namespace, token, record, until));
            }
            throw e;
        }
    }

    /** One lookup of the watched key; again after {@link #POLL} while the store does not answer. */
    private void lookUp(String namespace, String token, CallRecord record, long until) {
        long startedAt = callers.now();
        Optional<IdempotencyRecord> found;
        try {
            found = witness.lookup(namespace);
        } catch (RuntimeException e) {
            again(namespace, token, record, until, POLL);
            return;
        }
        if (found.isEmpty()) {
            again(namespace, token, record, until, ABSENT_POLL);
            return;
        }
        // The lease left was read on the server after this lookup began: it ends no earlier than that much after.
        if (found.orElse(null) instanceof IdempotencyRecord.Pending pending && pending.token().equals(token)) {
            record.reserveSeenLanded(startedAt, startedAt + pending.leaseRemaining().toNanos());
        }
        watcher.watchEnded(record);
    }

    /** The next lookup after {@code pause}, or the watch's end where its time is over. */
    private void again(String namespace, String token, CallRecord record, long until, Duration pause) {
        if (callers.now() + pause.toNanos() < until && !lookups.isShutdown()) {
            lookups.schedule(() -> lookUp(namespace, token, record, until), pause.toNanos(), TimeUnit.NANOSECONDS);
        } else {
            watcher.watchEnded(record);
        }
    }

    @Override
    public void close() {
        lookups.shutdownNow();
    }
}
