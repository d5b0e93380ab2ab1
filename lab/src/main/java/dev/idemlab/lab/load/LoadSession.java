package dev.idemlab.lab.load;

import dev.idemlab.lab.infra.JvmShutdown;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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

/**
 * One bounded burst of load against one coordinator and one provider. {@code clients} threads loop:
 * draw a logical request, maybe hand a duplicate of it to the retry pool (which sends it after a
 * random delay no longer than the provider's latency, so it lands while the first is in flight or
 * just done, like a client that timed out and retried), then send the request itself.
 *
 * <p>With a {@link DuplicateRelay} (the load's worker processes), a client hands its duplicate to
 * another worker instead, and the retry pool sends the duplicates other workers handed to this one
 * ({@link #acceptDuplicate}), so that the same key arrives concurrently from two processes.
 *
 * <p>Bounded everywhere: two fixed pools of {@code clients} threads, a retry queue of {@code clients}
 * slots that can never overflow (each client has at most one duplicate outstanding; a relayed
 * duplicate waits for a free slot), and a stop by deadline or by request count. Used by one thread;
 * its pools are its own.
 */
final class LoadSession implements LoadDriver {

    private static final Logger LOG = LoggerFactory.getLogger(LoadSession.class);
    /** Past the stop, in-flight requests get this long (plus a WAIT's own timeout) to answer. */
    static final Duration DRAIN = Duration.ofSeconds(30);

    private final LoadSettings settings;
    private final LoadTarget target;
    private final Duration waitTimeout;
    private final DuplicateRelay relay;
    private final ChargeHistory history;
    private final LatencyRecorder latencies;
    private final AtomicLong permits;
    private final AtomicLong retriesSent = new AtomicLong();
    private final AtomicLong completed = new AtomicLong();
    /** The types of unexpected exceptions already logged by this JVM: one line per type, not per request. */
    private static final Set<Class<?>> UNEXPECTED = ConcurrentHashMap.newKeySet();
    private final ExecutorService clientPool;
    private final ThreadPoolExecutor retryPool;
    /** Free slots of the retry pool (its threads and its queue) for duplicates relayed from other workers. */
    private final Semaphore relayedSlots;
    private volatile long deadlineNanos;

    /**
     * @param target where each request goes
     * @param waitTimeout how long a WAIT may hold a request, added to the drain past the stop
     * @param relay where duplicates go to be sent by another process, or {@code null} to send them here
     */
    LoadSession(LoadSettings settings, LoadTarget target, Duration waitTimeout, DuplicateRelay relay,
                ChargeHistory history, LatencyRecorder latencies) {
        this.settings = settings;
        this.target = target;
        this.waitTimeout = waitTimeout;
        this.relay = relay;
        this.history = history;
        this.latencies = latencies;
        this.permits = new AtomicLong(settings.stopsByCount() ? settings.requests() : Long.MAX_VALUE);
        int clients = settings.clients();
        clientPool = Executors.newFixedThreadPool(clients, threads("load-client-"));
        retryPool = new ThreadPoolExecutor(clients, clients, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(clients), threads("load-retry-"));
        relayedSlots = new Semaphore(2 * clients);
    }

    /** A session in this JVM: duplicates are sent by its own retry pool. */
    LoadSession(LoadSettings settings, LoadTarget target, Duration waitTimeout, ChargeHistory history,
                LatencyRecorder latencies) {
        this(settings, target, waitTimeout, null, history, latencies);
    }

    /** Runs until the deadline or the count, then waits for every request in flight to answer. */
    @Override
    public void run() throws InterruptedException {
        int clients = settings.clients();
        deadlineNanos = settings.stopsByCount() ? Long.MAX_VALUE
                : System.nanoTime() + settings.duration().toNanos();
        try {
            for (int client = 0; client < clients; client++) {
                int id = client;
                clientPool.execute(() -> clientLoop(id));
            }
            clientPool.shutdown();
            long drainNanos = DRAIN.plus(waitTimeout).toNanos();
            long limit = settings.stopsByCount() ? Long.MAX_VALUE / 2 : settings.duration().toNanos() + drainNanos;
            awaitBoth(limit);
        } finally {
            clientPool.shutdownNow();
            retryPool.shutdownNow();
        }
    }

    /** Requests answered so far (for a progress line). */
    @Override
    public long completed() {
        return completed.get();
    }

    /** Duplicates sent so far. */
    @Override
    public long retriesSent() {
        return retriesSent.get();
    }

    /**
     * Sends a duplicate another worker handed to this one, after {@code delayNanos}, on the retry pool;
     * waits while the pool is full.
     *
     * @throws InterruptedException if interrupted while waiting for a free slot
     */
    void acceptDuplicate(int key, long delayNanos) throws InterruptedException {
        relayedSlots.acquire();
        retryPool.execute(() -> {
            try {
                sendAfter(delayNanos, key);
            } finally {
                relayedSlots.release();
            }
        });
    }

    /**
     * The random numbers client {@code client} of a session seeded {@code seed} draws its keys from. Its
     * state steps by the same gamma its seed is multiplied by, so the sessions of two nearby seeds draw
     * the same keys a few steps apart: a session whose keys must differ from another's takes a seed far
     * from it ({@link FilterCost#warmUpSeed}).
     */
    static SplittableRandom keyRandom(long seed, int client) {
        return new SplittableRandom(seed * 0x9E3779B97F4A7C15L + client);
    }

    private void clientLoop(int client) {
        SplittableRandom random = keyRandom(settings.seed(), client);
        Semaphore duplicateOutstanding = new Semaphore(1);
        long latencyNanos = settings.providerLatency().toNanos();
        while (claim()) {
            int key = random.nextInt(settings.keys());
            if (random.nextDouble() < settings.retryRate() && claim()) {
                long delayNanos = latencyNanos == 0 ? 0 : random.nextLong(latencyNanos + 1);
                retriesSent.incrementAndGet();
                duplicate(key, delayNanos, duplicateOutstanding);
            }
            send(key);
        }
        duplicateOutstanding.acquireUninterruptibly();
    }

    /** Sends the duplicate after {@code delayNanos}: from this session's retry pool, or from another worker. */
    private void duplicate(int key, long delayNanos, Semaphore duplicateOutstanding) {
        if (relay != null) {
            relay.handOff(key, delayNanos);
            return;
        }
        duplicateOutstanding.acquireUninterruptibly();
        retryPool.execute(() -> {
            try {
                sendAfter(delayNanos, key);
            } finally {
                duplicateOutstanding.release();
            }
        });
    }

    private boolean claim() {
        return System.nanoTime() < deadlineNanos && permits.getAndDecrement() > 0;
    }

    private void sendAfter(long delayNanos, int key) {
        try {
            TimeUnit.NANOSECONDS.sleep(delayNanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        send(key);
    }

    /** One request to the target; records its answer and latency, never throws. */
    private void send(int key) {
        send(key, System.nanoTime());
    }

    /**
     * As {@link #send(int)}, with the latency counted from {@code start}: an open-loop driver passes the
     * request's intended start, so the time it waited for a free client counts.
     */
    void send(int key, long start) {
        history.invoked();
        try {
            target.send(key, history);
        } catch (RuntimeException e) {
            ErrorKind kind = ErrorKind.of(e);
            if (kind != null) {
                history.failed(kind);
            } else if (!JvmShutdown.inProgress() && UNEXPECTED.add(e.getClass())) {
                // Counted as indeterminate by the history; said here once per type, with its stack, unless the
                // JVM is exiting on a signal and its servers are stopping under the clients.
                LOG.warn("a request ended with an exception the load does not expect; it and every later {} count "
                        + "as indeterminate answers", e.getClass().getSimpleName(), e);
            }
        }
        latencies.record(System.nanoTime() - start);
        completed.incrementAndGet();
    }

    private void awaitBoth(long limitNanos) throws InterruptedException {
        long end = System.nanoTime() + limitNanos;
        clientPool.awaitTermination(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
        if (relay != null) {
            // Other workers hand this one duplicates until every worker's clients are done.
            relay.awaitLastDuplicate();
        }
        // Only now: a client hands its duplicates to the retry pool until its loop ends.
        retryPool.shutdown();
        retryPool.awaitTermination(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    private static ThreadFactory threads(String prefix) {
        AtomicInteger next = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + next.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
