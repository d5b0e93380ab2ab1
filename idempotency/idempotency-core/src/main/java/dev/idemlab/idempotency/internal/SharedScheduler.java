package dev.idemlab.idempotency.internal;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The one timer every coordinator in the JVM renews leases and settles late store calls on, as
 * Redisson's lock watchdog does: a couple of daemon threads, never a thread per call. Each task is one
 * store round trip. Thread-safe.
 */
final class SharedScheduler {

    private static final int THREADS = 2;

    private SharedScheduler() { }

    private static final class Holder {
        static final ScheduledThreadPoolExecutor EXECUTOR = create();
    }

    static ScheduledExecutorService get() {
        return Holder.EXECUTOR;
    }

    private static ScheduledThreadPoolExecutor create() {
        AtomicInteger count = new AtomicInteger();
        ThreadFactory threads = runnable -> {
            Thread thread = new Thread(runnable, "idempotency-timer-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(THREADS, threads);
        executor.setRemoveOnCancelPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        return executor;
    }
}
