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
 * the same store, every {@link #POLL}, for three leases at most) until the store answers: a reservation
 * under the call's own token is the proof, and the call records when it was seen and how much of its
 * lease it had left ({@link CallRecord#reserveSeenLanded}). Any other answer (nothing, a completed record,
 * another token's reservation) proves nothing and ends the watch.
 *
 * <p>Only calls sent with {@code call} on a caller's own thread are watched ({@link #calling}: the
 * coordinator reserves on that thread, so the failure is tied to its call); a call the watch misses is
 * simply not known to have landed, and the checker then reads it as before. Only calls that fail open
 * are watched: a caller that fails closed charged nothing. The lookups are reads, made on threads of the
 * watch's own. Thread-safe.
 */
final class LandedReserves extends ForwardingIdempotencyStore implements AutoCloseable {

    /** How often a watched key is looked up while the store does not answer. */
    static final Duration POLL = Duration.ofMillis(50);

    private static final ThreadLocal<CallRecord> CALLING = new ThreadLocal<>();

    private final Callers callers;
    private final long watchNanos;
    private final Set<CallRecord> watched = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService lookups = Executors.newScheduledThreadPool(4, runnable -> {
        Thread thread = new Thread(runnable, "nemesis-landed-reserves");
        thread.setDaemon(true);
        return thread;
    });

    LandedReserves(IdempotencyStore delegate, Callers callers, Duration lease) {
        super(delegate);
        this.callers = callers;
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
            found = delegate().lookup(namespace);
        } catch (RuntimeException e) {
            if (callers.now() < until && !lookups.isShutdown()) {
                lookups.schedule(() -> lookUp(namespace, token, record, until), POLL.toNanos(), TimeUnit.NANOSECONDS);
            }
            return;
        }
        // The lease left was read on the server after this lookup began: it ends no earlier than that much after.
        if (found.orElse(null) instanceof IdempotencyRecord.Pending pending && pending.token().equals(token)) {
            record.reserveSeenLanded(startedAt, startedAt + pending.leaseRemaining().toNanos());
        }
    }

    @Override
    public void close() {
        lookups.shutdownNow();
    }
}
