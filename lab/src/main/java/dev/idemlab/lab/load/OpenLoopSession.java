package dev.idemlab.lab.load;

import java.util.SplittableRandom;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Open-loop load: logical request {@code i} is due at {@code start + i / rate}, whatever happened to
 * the requests before it, and its latency is counted from that intended start (an explicit schedule,
 * as wrk2 does), so a slow answer that holds up the requests behind it shows in their latencies
 * instead of quietly lowering the rate: no coordinated omission. {@code clients} threads take the
 * due requests in order; when all are busy, the next request waits, and that wait is latency.
 * Duplicates are sent as in {@link LoadSession}: with probability {@code retryRate}, a second request
 * with the same key after a random delay no longer than the provider's latency, its latency counted
 * from its own intended start.
 *
 * <p>Used by one thread; its pools are its own.
 */
final class OpenLoopSession implements LoadDriver {

    private static final long DRAIN_NANOS = TimeUnit.MINUTES.toNanos(2);

    private final LoadSettings settings;
    private final LoadSession sender;
    private final long periodNanos;
    private final AtomicLong next = new AtomicLong();
    private final AtomicLong retriesSent = new AtomicLong();
    private volatile long startNanos;
    private volatile long deadlineNanos;

    OpenLoopSession(LoadSettings settings, LoadSession sender) {
        if (!settings.openLoop()) {
            throw new IllegalArgumentException("an open-loop session needs a rate");
        }
        this.settings = settings;
        this.sender = sender;
        this.periodNanos = Math.max(1, Math.round(1e9 / settings.rate()));
    }

    @Override
    public void run() throws InterruptedException {
        int clients = settings.clients();
        ExecutorService clientPool = Executors.newFixedThreadPool(clients, threads("load-open-"));
        ThreadPoolExecutor retryPool = new ThreadPoolExecutor(clients, clients, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(clients), threads("load-open-retry-"));
        startNanos = System.nanoTime();
        deadlineNanos = settings.stopsByCount() ? Long.MAX_VALUE : startNanos + settings.duration().toNanos();
        try {
            for (int client = 0; client < clients; client++) {
                int id = client;
                clientPool.execute(() -> clientLoop(id, retryPool));
            }
            clientPool.shutdown();
            // Past the stop, requests in flight get a bounded while to answer, as in a closed-loop session.
            long end = settings.stopsByCount() ? Long.MAX_VALUE / 2 : deadlineNanos + DRAIN_NANOS;
            clientPool.awaitTermination(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
            retryPool.shutdown();
            retryPool.awaitTermination(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
        } finally {
            clientPool.shutdownNow();
            retryPool.shutdownNow();
        }
    }

    @Override
    public long completed() {
        return sender.completed();
    }

    @Override
    public long retriesSent() {
        return retriesSent.get();
    }

    private void clientLoop(int client, ThreadPoolExecutor retryPool) {
        SplittableRandom random = new SplittableRandom(settings.seed() * 0x9E3779B97F4A7C15L + client);
        Semaphore duplicateOutstanding = new Semaphore(1);
        long latencyNanos = settings.providerLatency().toNanos();
        while (true) {
            long index = next.getAndIncrement();
            long intended = startNanos + index * periodNanos;
            if (intended - deadlineNanos >= 0 || (settings.stopsByCount() && index >= settings.requests())) {
                break;
            }
            waitUntil(intended);
            if (Thread.currentThread().isInterrupted()) {
                break;
            }
            int key = random.nextInt(settings.keys());
            if (random.nextDouble() < settings.retryRate()) {
                duplicateOutstanding.acquireUninterruptibly();
                long delayNanos = latencyNanos == 0 ? 0 : random.nextLong(latencyNanos + 1);
                retriesSent.incrementAndGet();
                retryPool.execute(() -> {
                    try {
                        long due = intended + delayNanos;
                        waitUntil(due);
                        sender.send(key, due);
                    } finally {
                        duplicateOutstanding.release();
                    }
                });
            }
            sender.send(key, intended);
        }
        duplicateOutstanding.acquireUninterruptibly();
    }

    private static void waitUntil(long dueNanos) {
        long left;
        while ((left = dueNanos - System.nanoTime()) > 0 && !Thread.currentThread().isInterrupted()) {
            LockSupport.parkNanos(left);
        }
    }

    private static ThreadFactory threads(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
