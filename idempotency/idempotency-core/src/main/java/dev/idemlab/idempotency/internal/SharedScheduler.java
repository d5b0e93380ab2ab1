package dev.idemlab.idempotency.internal;

import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What every coordinator in the JVM renews leases and settles late store calls with, as Redisson's
 * lock watchdog does: one timer of a couple of daemon threads, never a thread per call, and a pool of
 * daemon threads for the store calls the timer sets off.
 *
 * <p>The timer is a trigger only: its tasks never call the store, they hand the call to
 * {@link #storeCalls()}. A store call may block for a whole command timeout (a paused server, a
 * partitioned shard); on the timer, two of them would hold up every other lease's renewal, and
 * healthy holders would lose their leases to a fault elsewhere. The pool grows with the calls that
 * are blocked at once and lets idle threads go; a heartbeat never has more than one renewal in it
 * (see {@link Heartbeat}), so it stays bounded by the holders whose action outlives a beat.
 *
 * <p>Thread-safe.
 */
final class SharedScheduler {

    private static final int TIMER_THREADS = 2;

    private SharedScheduler() { }

    private static final class Holder {
        static final ScheduledThreadPoolExecutor TIMER = createTimer();
        static final ExecutorService STORE_CALLS = Executors.newCachedThreadPool(daemons("idempotency-store-call-"));
    }

    /** The timer: its tasks must return at once, handing any store call to {@link #storeCalls()}. */
    static ScheduledExecutorService get() {
        return Holder.TIMER;
    }

    /** Where renewals and background settles call the store; never rejects a task. */
    static Executor storeCalls() {
        return Holder.STORE_CALLS;
    }

    private static ScheduledThreadPoolExecutor createTimer() {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(TIMER_THREADS,
                daemons("idempotency-timer-"));
        executor.setRemoveOnCancelPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        return executor;
    }

    private static ThreadFactory daemons(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
