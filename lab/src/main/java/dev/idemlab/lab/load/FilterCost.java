package dev.idemlab.lab.load;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.lab.http.DemoServer;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.ChargeRequest;
import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.PaymentProvider;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The Idempotency-Key filter's cost over HTTP, as a user compares middleware: the demo payment API
 * ({@link DemoServer}, what {@code lab serve} runs) with the filter and the same handler without it
 * ({@code lab serve --without-filter}), driven by the load's closed-loop clients through JDK
 * {@code HttpClient}s ({@link HttpTarget}), per kind of request:
 *
 * <ul>
 *   <li>first calls: fresh keys, so the filter reserves, the handler charges, the filter stores;</li>
 *   <li>replays: every key answered once before the run, so the filter replays and the handler does not run;</li>
 *   <li>in-flight conflicts: every key's first request held inside the provider for the whole run, so
 *       the filter answers 409 (RAISE, the draft's) and the handler does not run.</li>
 * </ul>
 *
 * The unfiltered run sends the same requests, and every one runs the handler: that is what the API
 * costs without the filter. Each kind gets fresh servers and store clients; both servers are warmed
 * up first. No duplicates are sent during a run, so each row measures one kind.
 *
 * <p>Not thread-safe: run one comparison at a time.
 */
public final class FilterCost {

    /** Keys answered before a replay run, or held in flight during a conflict run. */
    public static final int PRIMED_KEYS = 64;

    private final LoadSettings settings;
    private final LoadProgress progress;

    /**
     * @param settings clients, provider latency and duration of each run; retries and rate are not used
     * @param progress where a line per run goes
     */
    public FilterCost(LoadSettings settings, LoadProgress progress) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.progress = Objects.requireNonNull(progress, "progress");
        if (settings.stopsByCount() || settings.openLoop()) {
            throw new IllegalArgumentException("the filter comparison runs closed-loop clients for a duration");
        }
    }

    /**
     * Every kind of request on one store.
     *
     * @throws IOException if a server cannot start
     * @throws InterruptedException if interrupted while a run is under way
     */
    public List<FilterCostRow> run(StoreBackend backend) throws IOException, InterruptedException {
        List<FilterCostRow> rows = new ArrayList<>();
        for (RequestKind kind : RequestKind.values()) {
            rows.add(run(backend, kind));
        }
        return rows;
    }

    private FilterCostRow run(StoreBackend backend, RequestKind kind) throws IOException, InterruptedException {
        HeldProvider held = new HeldProvider(FakePaymentProvider.builder().latency(settings.providerLatency()).build());
        FakePaymentProvider plain = FakePaymentProvider.builder().latency(settings.providerLatency()).build();
        IdempotencyConfig config = IdempotencyConfig.ofDefaults();
        try (IdempotencyStore store = backend.openStore(); IdempotencyStore unusedStore = backend.openStore();
             DemoServer filtered = DemoServer.start(store, LabPolicy.RAISE, config, held, n -> { }, 0, true);
             DemoServer unfiltered = DemoServer.start(unusedStore, LabPolicy.RAISE, config, plain, n -> { }, 0,
                     false)) {
            warmUp(filtered);
            warmUp(unfiltered);
            LoadSettings measured = measuredSettings(kind);
            ExecutorService holders = Executors.newFixedThreadPool(PRIMED_KEYS);
            try {
                prime(kind, filtered, held, holders);
                String label = backend.name() + "/" + kind.label();
                ChargeHistory history = new ChargeHistory();
                FilterCostRow.Measure through = measure(label + " through the filter", filtered, measured, history);
                FilterCostRow.Measure without = measure(label + " without the filter", unfiltered, measured,
                        new ChargeHistory());
                return new FilterCostRow(backend.name(), kind, through, without, answeredAsKind(kind, history),
                        answers(history));
            } finally {
                held.release();
                holders.shutdown();
                holders.awaitTermination(1, TimeUnit.MINUTES);
            }
        }
    }

    /** First calls draw from a billion keys; replays and conflicts from the primed ones. */
    private LoadSettings measuredSettings(RequestKind kind) {
        int keys = kind == RequestKind.FIRST_CALL ? LoadSettings.DEFAULT_KEYS : PRIMED_KEYS;
        return new LoadSettings(settings.clients(), 0, settings.providerLatency(), keys, settings.duration(), 0,
                settings.seed());
    }

    /** Keys 0 to {@link #PRIMED_KEYS}: answered once before a replay run, held in flight for a conflict run. */
    private static void prime(RequestKind kind, DemoServer filtered, HeldProvider held, ExecutorService holders)
            throws InterruptedException {
        HttpTarget target = new HttpTarget(filtered.uri());
        ChargeHistory scratch = new ChargeHistory();
        if (kind == RequestKind.REPLAY) {
            for (int key = 0; key < PRIMED_KEYS; key++) {
                target.send(key, scratch);
            }
        } else if (kind == RequestKind.IN_FLIGHT_CONFLICT) {
            held.hold();
            for (int key = 0; key < PRIMED_KEYS; key++) {
                int each = key;
                holders.execute(() -> target.send(each, scratch));
            }
            if (!held.awaitHolding(PRIMED_KEYS, Duration.ofSeconds(30))) {
                throw new IllegalStateException("the conflict run's first requests did not reach the provider");
            }
        }
    }

    private void warmUp(DemoServer server) throws InterruptedException {
        LoadSettings warmUp = new LoadSettings(settings.clients(), 0, Duration.ZERO, LoadSettings.DEFAULT_KEYS, null,
                (long) settings.clients() * LoadSettings.WARM_UP_PER_CLIENT, ~settings.seed());
        new LoadSession(warmUp, new HttpTarget(server.uri()), Duration.ZERO, new ChargeHistory(),
                new LatencyRecorder()).run();
    }

    private FilterCostRow.Measure measure(String label, DemoServer server, LoadSettings measured,
                                          ChargeHistory history) throws InterruptedException {
        LatencyRecorder latencies = new LatencyRecorder();
        LoadSession session = new LoadSession(measured, new HttpTarget(server.uri()), Duration.ZERO, history,
                latencies);
        long start = System.nanoTime();
        session.run();
        long elapsed = System.nanoTime() - start;
        LatencySummary latency = LatencySummary.of(latencies.merged());
        double throughput = latency.count() * 1e9 / Math.max(1, elapsed);
        progress.finished(String.format(Locale.ROOT, "%s: %,d requests, %,.0f/s, p50 %.2f ms, p99 %.2f ms",
                label, latency.count(), throughput, latency.p50(), latency.p99()));
        return new FilterCostRow.Measure(throughput, latency);
    }

    /** {@code executed 1380, replayed 22, in-progress 0, indeterminate 0}: what the filtered run's requests got. */
    private static String answers(ChargeHistory history) {
        return String.format(Locale.ROOT, "executed %d, replayed %d, in-progress %d, indeterminate %d",
                history.answers(Outcome.EXECUTED), history.answers(Outcome.REPLAYED),
                history.errors(ErrorKind.IN_PROGRESS), history.indeterminate());
    }

    private static long answeredAsKind(RequestKind kind, ChargeHistory history) {
        return switch (kind) {
            case FIRST_CALL -> history.answers(Outcome.EXECUTED);
            case REPLAY -> history.answers(Outcome.REPLAYED);
            case IN_FLIGHT_CONFLICT -> history.errors(ErrorKind.IN_PROGRESS);
        };
    }

    /**
     * The provider of a conflict run: while held, a charge waits inside it until released, so its
     * request keeps its key in flight. Thread-safe.
     */
    private static final class HeldProvider implements PaymentProvider {

        private final FakePaymentProvider delegate;
        private volatile CountDownLatch gate = new CountDownLatch(0);
        private final Semaphore inside = new Semaphore(0);

        HeldProvider(FakePaymentProvider delegate) {
            this.delegate = delegate;
        }

        /** From now on, charges wait; the warm-up's charges before it do not count as held. */
        void hold() {
            inside.drainPermits();
            gate = new CountDownLatch(1);
        }

        void release() {
            gate.countDown();
        }

        boolean awaitHolding(int charges, Duration timeout) throws InterruptedException {
            return inside.tryAcquire(charges, timeout.toMillis(), TimeUnit.MILLISECONDS);
        }

        @Override
        public Charge charge(ChargeRequest request) {
            CountDownLatch current = gate;
            inside.release();
            try {
                current.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while held", e);
            }
            return delegate.charge(request);
        }

        @Override
        public List<Charge> ledger() {
            return delegate.ledger();
        }

        @Override
        public Optional<Charge> findCharge(String id) {
            return delegate.findCharge(id);
        }
    }
}
