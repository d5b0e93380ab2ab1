package dev.idemlab.lab.load;

import dev.idemlab.idempotency.Fingerprint;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.FakePaymentProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Map;
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
 * <p>Bounded everywhere: two fixed pools of {@code clients} threads, a retry queue of {@code clients}
 * slots that can never overflow (each client has at most one duplicate outstanding), and a stop by
 * deadline or by request count. Used by one thread; its pools are its own.
 */
final class LoadSession implements LoadDriver {

    private static final Logger LOG = LoggerFactory.getLogger(LoadSession.class);
    private static final ResultCodec<Charge> CHARGE = ResultCodec.json(Charge.class);
    /** Past the stop, in-flight requests get this long (plus a WAIT's own timeout) to answer. */
    private static final Duration DRAIN = Duration.ofSeconds(30);

    private final LoadSettings settings;
    private final IdempotencyCoordinator coordinator;
    private final FakePaymentProvider provider;
    private final ChargeHistory history;
    private final LatencyRecorder latencies;
    private final AtomicLong permits;
    private final AtomicLong retriesSent = new AtomicLong();
    private final AtomicLong completed = new AtomicLong();
    /** The types of unexpected exceptions already logged by this JVM: one line per type, not per request. */
    private static final Set<Class<?>> UNEXPECTED = ConcurrentHashMap.newKeySet();
    private volatile long deadlineNanos;

    LoadSession(LoadSettings settings, IdempotencyCoordinator coordinator, FakePaymentProvider provider,
                ChargeHistory history, LatencyRecorder latencies) {
        this.settings = settings;
        this.coordinator = coordinator;
        this.provider = provider;
        this.history = history;
        this.latencies = latencies;
        this.permits = new AtomicLong(settings.stopsByCount() ? settings.requests() : Long.MAX_VALUE);
    }

    /** Runs until the deadline or the count, then waits for every request in flight to answer. */
    @Override
    public void run() throws InterruptedException {
        int clients = settings.clients();
        ExecutorService clientPool = Executors.newFixedThreadPool(clients, threads("load-client-"));
        ThreadPoolExecutor retryPool = new ThreadPoolExecutor(clients, clients, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(clients), threads("load-retry-"));
        deadlineNanos = settings.stopsByCount() ? Long.MAX_VALUE
                : System.nanoTime() + settings.duration().toNanos();
        try {
            for (int client = 0; client < clients; client++) {
                int id = client;
                clientPool.execute(() -> clientLoop(id, retryPool));
            }
            clientPool.shutdown();
            long drainNanos = DRAIN.plus(coordinator.config().waitTimeout()).toNanos();
            long limit = settings.stopsByCount() ? Long.MAX_VALUE / 2 : settings.duration().toNanos() + drainNanos;
            awaitBoth(clientPool, retryPool, limit);
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

    private void clientLoop(int client, ThreadPoolExecutor retryPool) {
        SplittableRandom random = new SplittableRandom(settings.seed() * 0x9E3779B97F4A7C15L + client);
        Semaphore duplicateOutstanding = new Semaphore(1);
        long latencyNanos = settings.providerLatency().toNanos();
        while (claim()) {
            int key = random.nextInt(settings.keys());
            if (random.nextDouble() < settings.retryRate() && claim()) {
                duplicateOutstanding.acquireUninterruptibly();
                long delayNanos = latencyNanos == 0 ? 0 : random.nextLong(latencyNanos + 1);
                retriesSent.incrementAndGet();
                retryPool.execute(() -> {
                    try {
                        sendAfter(delayNanos, key);
                    } finally {
                        duplicateOutstanding.release();
                    }
                });
            }
            send(key);
        }
        duplicateOutstanding.acquireUninterruptibly();
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

    /** One request through the coordinator to the provider; records its answer and latency, never throws. */
    private void send(int key) {
        send(key, System.nanoTime());
    }

    /**
     * As {@link #send(int)}, with the latency counted from {@code start}: an open-loop driver passes the
     * request's intended start, so the time it waited for a free client counts.
     */
    void send(int key, long start) {
        String idempotencyKey = LoadKeys.key(key);
        String orderId = LoadKeys.orderId(key);
        long amount = LoadKeys.amount(key);
        history.invoked();
        try {
            IdempotentCall call = IdempotentCall.of(LoadKeys.OPERATION, idempotencyKey,
                    Fingerprint.ofFields(Map.of("order_id", orderId, "amount", amount)));
            IdempotentResult<Charge> result = coordinator.call(call, CHARGE,
                    () -> provider.charge(orderId, amount, idempotencyKey));
            history.answered(key, result.value().id(), result.outcome());
        } catch (RuntimeException e) {
            ErrorKind kind = ErrorKind.of(e);
            if (kind != null) {
                history.failed(kind);
            } else if (UNEXPECTED.add(e.getClass())) {
                // Counted as indeterminate by the history; said here once per type, with its stack.
                LOG.warn("a request ended with an exception the load does not expect; it and every later {} count "
                        + "as indeterminate answers", e.getClass().getSimpleName(), e);
            }
        }
        latencies.record(System.nanoTime() - start);
        completed.incrementAndGet();
    }

    private static void awaitBoth(ExecutorService clients, ExecutorService retries, long limitNanos)
            throws InterruptedException {
        long end = System.nanoTime() + limitNanos;
        clients.awaitTermination(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
        // Only now: a client hands its duplicates to the retry pool until its loop ends.
        retries.shutdown();
        retries.awaitTermination(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
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
