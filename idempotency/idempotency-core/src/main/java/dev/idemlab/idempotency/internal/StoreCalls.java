package dev.idemlab.idempotency.internal;

import dev.idemlab.idempotency.Ticker;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * How the coordinator calls its store when the store is slow or failing:
 *
 * <ul>
 *   <li>{@link #withPatience}: a call that timed out is a stall, and one the server did not run for now
 *       (busy, {@link IdempotencyStoreException#isTransient()}) is not an outage either, so it is tried
 *       again until the patience runs out. A refused connection or an open circuit fails at once. Every
 *       store operation is safe to repeat: a reserve with the same token acquires again, complete and
 *       release check the token.</li>
 *   <li>{@link #settleLater}: a best-effort call after the caller was already answered (a marker
 *       that may have landed late), retried in the background with a growing pause, for a bounded
 *       time, so that no caller waits out a second timeout. The calls run on
 *       {@link SharedScheduler#storeCalls()}; the timer only starts the retries, so a settle that
 *       waits out a timeout never delays a lease's renewal.</li>
 * </ul>
 *
 * <p>Thread-safe.
 */
final class StoreCalls {

    private static final Logger LOG = LoggerFactory.getLogger(StoreCalls.class);
    private static final long FIRST_RETRY_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    // Short, and never long: a settle races the lease of the marker it settles (a completion that did not land
    // leaves the key to whoever reserves once that lease ends), and a store that is down fails each try fast.
    private static final long FIRST_SETTLE_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final long MAX_SETTLE_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    private final Ticker ticker;
    private final long patienceNanos;

    StoreCalls(Ticker ticker, Duration patience) {
        this.ticker = ticker;
        this.patienceNanos = patience.toNanos();
    }

    /**
     * Runs {@code call}, and again while it fails transiently within the patience.
     *
     * @throws IdempotencyStoreException the last failure, when it was not transient (a timeout or a busy
     *     server) or the patience ran out; when an earlier try timed out and a later one failed otherwise,
     *     the last failure carries the first timeout as suppressed, so that
     *     {@link IdempotencyStoreException#mayHaveLanded()} still says the call may have landed
     */
    <T> T withPatience(Supplier<T> call) {
        return retry(ticker.read(), null, call);
    }

    /**
     * As {@link #withPatience(Supplier)}, with the patience counted from {@code start} (a {@link #now()}
     * reading the caller needs for itself).
     *
     * @throws IdempotencyStoreException as {@link #withPatience(Supplier)} does
     */
    <T> T withPatience(long start, Supplier<T> call) {
        return retry(start, null, call);
    }

    /**
     * As {@link #withPatience}, after a first try that the caller made itself at {@code start} (a
     * {@link #now()} reading) and that failed with {@code first}: the hot path then builds no
     * supplier, and the patience still counts from the first try.
     *
     * @throws IdempotencyStoreException as {@link #withPatience} does
     */
    <T> T afterFailure(long start, IdempotencyStoreException first, Supplier<T> call) {
        return retry(start, first, call);
    }

    /** The ticker's reading, to pass to {@link #afterFailure}. */
    long now() {
        return ticker.read();
    }

    private <T> T retry(long start, IdempotencyStoreException failed, Supplier<T> call) {
        long pause = FIRST_RETRY_PAUSE_NANOS;
        IdempotencyStoreException firstTimeout = null;
        while (true) {
            if (failed != null) {
                if (failed.failure() == IdempotencyStoreException.Failure.TIMEOUT && firstTimeout == null) {
                    firstTimeout = failed;
                }
                if (!failed.isTransient() || Thread.currentThread().isInterrupted()
                        || ticker.read() - start + pause > patienceNanos) {
                    // A try that timed out may have landed, whatever a later one reported (a dropped connection,
                    // a busy server): the caller must still settle it, so the failure it gets says so.
                    if (firstTimeout != null && firstTimeout != failed) {
                        failed.addSuppressed(firstTimeout);
                    }
                    throw failed;
                }
                LOG.debug("store call failed for now, trying again within the patience: {}", failed.getMessage());
                LockSupport.parkNanos(pause);
                pause = Math.min(pause * 2, TimeUnit.MILLISECONDS.toNanos(200));
            }
            try {
                return call.get();
            } catch (IdempotencyStoreException e) {
                failed = e;
            }
        }
    }

    /**
     * Runs {@code call} in the background until it answers (either way) or {@code within} has passed.
     * {@code what} names it in the log.
     */
    void settleLater(String what, Duration within, BooleanSupplier call) {
        settleLater(what, within, call, () -> { });
    }

    /** As {@link #settleLater(String, Duration, BooleanSupplier)}, then runs {@code settled} once it answered or gave up. */
    void settleLater(String what, Duration within, BooleanSupplier call, Runnable settled) {
        settleLater(what, within, within, () -> false, call, settled);
    }

    /**
     * As {@link #settleLater(String, Duration, BooleanSupplier, Runnable)}, going on past {@code within}
     * (up to {@code atMost}) only while {@code worthGoingOn} says so: a settle that still protects
     * something (a lease its renewals keep confirming) outlasts a short outage, but not a long one.
     */
    void settleLater(String what, Duration within, Duration atMost, BooleanSupplier worthGoingOn,
                     BooleanSupplier call, Runnable settled) {
        long startedAt = ticker.read();
        long firstGiveUpAt = startedAt + within.toNanos();
        long giveUpAt = startedAt + Math.max(within.toNanos(), atMost.toNanos());
        schedule(new Runnable() {
            private long pause = FIRST_SETTLE_PAUSE_NANOS;

            @Override
            public void run() {
                try {
                    boolean done = call.getAsBoolean();
                    LOG.debug("{} settled: {}", what, done ? "written" : "another attempt's record was there");
                    settled.run();
                } catch (RuntimeException e) {
                    long now = ticker.read();
                    if (now - giveUpAt >= 0 || (now - firstGiveUpAt >= 0 && !worthGoingOn.getAsBoolean())) {
                        LOG.warn("{} did not settle before giving up: {}", what, e.toString());
                        settled.run();
                        return;
                    }
                    pause = Math.min(pause * 2, MAX_SETTLE_PAUSE_NANOS);
                    schedule(this, pause);
                } catch (Error e) {
                    settled.run();
                    throw e;
                }
            }
        }, 0);
    }

    private static void schedule(Runnable task, long delayNanos) {
        if (delayNanos == 0) {
            SharedScheduler.storeCalls().execute(task);
        } else {
            SharedScheduler.get().schedule(() -> SharedScheduler.storeCalls().execute(task), delayNanos,
                    TimeUnit.NANOSECONDS);
        }
    }
}
