package dev.idemlab.lab.load;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotencyStats;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.StorePhase;
import dev.idemlab.lab.load.raw.RawStore;
import dev.idemlab.lab.load.raw.RawStores;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.scenario.CoordinatorFactory;
import dev.idemlab.provider.FakePaymentProvider;
import java.lang.ref.Reference;
import java.time.Duration;
import java.util.EnumMap;
import java.util.function.Supplier;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Loads one store under one in-flight policy and checks the run against the provider's ledger.
 * Each run gets a fresh store client (a key prefix of its own), a fresh provider (so its ledger is
 * that run's ground truth) and a fresh coordinator; a short warm-up on throwaway ones goes first.
 *
 * <p>Not thread-safe: run one load at a time, since runs on one machine would measure each other.
 */
public final class LoadGenerator {

    private final LoadSettings settings;
    private final CoordinatorFactory coordinators;
    private final LoadProgress progress;
    private final LoadFaults faults;
    /** The raw driver has no coordinator: no counters, no storage errors. */
    private static final IdempotencyStats NO_STATS = new IdempotencyStats(new EnumMap<>(Outcome.class),
            new EnumMap<>(StorePhase.class), 0, 0);

    /**
     * @param settings the load's shape and stop
     * @param coordinators builds the coordinator under test
     * @param progress where progress goes; {@link LoadProgress#NONE} for none
     */
    public LoadGenerator(LoadSettings settings, CoordinatorFactory coordinators, LoadProgress progress) {
        this(settings, coordinators, progress, LoadFaults.NONE);
    }

    /**
     * @param faults stalls of the store's server, deduplication by the provider, store patience
     */
    public LoadGenerator(LoadSettings settings, CoordinatorFactory coordinators, LoadProgress progress,
                         LoadFaults faults) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.coordinators = Objects.requireNonNull(coordinators, "coordinators");
        this.progress = Objects.requireNonNull(progress, "progress");
        this.faults = Objects.requireNonNull(faults, "faults");
    }

    /**
     * Warms up, runs the measured load, checks it.
     *
     * @throws InterruptedException if this thread is interrupted while the load runs
     */
    public LoadRun run(StoreBackend backend, LabPolicy policy) throws InterruptedException {
        warmUp(backend, policy);
        try (IdempotencyStore store = backend.openStore()) {
            FakePaymentProvider provider = provider();
            IdempotencyCoordinator coordinator = coordinators.create(store, policy, config());
            StoreStalls stalls = faults.stalls() ? new StoreStalls(stallablePid(backend), faults.stallEvery(),
                    faults.stallFor()) : null;
            return measure(backend, backend.name() + "/" + policy.name().toLowerCase(Locale.ROOT), policy,
                    new CoordinatorTarget(coordinator, provider), provider, coordinator.config().waitTimeout(),
                    coordinator::stats, stalls);
        }
    }

    /**
     * The same load, with the same arrivals, clients, provider and checks, on the same server driven
     * raw ({@link RawTarget}): the store's writes of a first call by hand, without the coordinator.
     * Checked as RAISE, which the raw driver behaves like: it must charge no key twice either.
     *
     * @throws IllegalArgumentException for a store without a raw client
     * @throws InterruptedException if this thread is interrupted while the load runs
     */
    public LoadRun runRaw(StoreBackend backend) throws InterruptedException {
        try (RawStore warm = RawStores.open(backend)) {
            FakePaymentProvider scratch = FakePaymentProvider.builder().latency(Duration.ZERO).build();
            new LoadSession(settings.warmUp(), new RawTarget(warm, scratch), Duration.ZERO, new ChargeHistory(),
                    new LatencyRecorder()).run();
        }
        try (RawStore raw = RawStores.open(backend)) {
            FakePaymentProvider provider = provider();
            return measure(backend, backend.name() + "/raw", LabPolicy.RAISE, new RawTarget(raw, provider), provider,
                    Duration.ZERO, () -> NO_STATS, null);
        }
    }

    private LoadRun measure(StoreBackend backend, String label, LabPolicy policy, LoadTarget target,
                            FakePaymentProvider provider, Duration waitTimeout, Supplier<IdempotencyStats> stats,
                            StoreStalls stalls) throws InterruptedException {
        ChargeHistory history = new ChargeHistory();
        LatencyRecorder latencies = new LatencyRecorder();
        LoadSession sender = new LoadSession(settings, target, waitTimeout, history, latencies);
        LoadDriver session = settings.openLoop() ? new OpenLoopSession(settings, sender) : sender;
        long start = System.nanoTime();
        ScheduledExecutorService ticker = startProgress(progress, label, session, start);
        try {
            if (stalls != null) {
                stalls.start();
            }
            session.run();
        } finally {
            if (stalls != null) {
                stalls.close();
            }
            ticker.shutdownNow();
        }
        long elapsed = System.nanoTime() - start;
        LedgerCheck check = HistoryChecker.check(policy, history, provider.ledger(), stats.get());
        long heapUsed = heapUsedAfterCollection();
        // The figure above is meant to include the run's history and ledger: keep them alive to here.
        Reference.reachabilityFence(history);
        Reference.reachabilityFence(provider);
        progress.finished(String.format(Locale.ROOT, "%s: %,d requests checked in %.1f s", label,
                check.requests(), elapsed / 1e9));
        return new LoadRun(backend.server(), check, LatencySummary.of(latencies.merged()), elapsed,
                session.retriesSent(), heapUsed, history.footprintBytes(), stalls == null ? 0 : stalls.made());
    }

    private FakePaymentProvider provider() {
        return FakePaymentProvider.builder().latency(settings.providerLatency())
                .deduplicateOnKey(faults.downstreamKey()).build();
    }

    private void warmUp(StoreBackend backend, LabPolicy policy) throws InterruptedException {
        try (IdempotencyStore store = backend.openStore()) {
            FakePaymentProvider provider = FakePaymentProvider.builder().latency(Duration.ZERO).build();
            IdempotencyCoordinator coordinator = coordinators.create(store, policy, config());
            new LoadSession(settings.warmUp(), new CoordinatorTarget(coordinator, provider),
                    coordinator.config().waitTimeout(), new ChargeHistory(), new LatencyRecorder()).run();
        }
    }

    private IdempotencyConfig config() {
        return faults.storePatience() == null ? IdempotencyConfig.ofDefaults()
                : IdempotencyConfig.custom().storePatience(faults.storePatience()).build();
    }

    /** The pid of the store's private server, the only kind of server the lab stalls. */
    private static long stallablePid(StoreBackend backend) {
        if (backend instanceof dev.idemlab.lab.infra.RedisBackend redis && redis.serverPid().isPresent()) {
            return redis.serverPid().getAsLong();
        }
        throw new IllegalArgumentException("stalls need the lab's own private Redis server process; "
                + backend.server().describe() + " is not one");
    }

    /** Says every second how far {@code session} is: {@code label: 12 s, 34,567 requests, 2,880/s}. */
    static ScheduledExecutorService startProgress(LoadProgress progress, String label, LoadDriver session, long start) {
        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "load-progress");
            thread.setDaemon(true);
            return thread;
        });
        ticker.scheduleAtFixedRate(() -> {
            double seconds = (System.nanoTime() - start) / 1e9;
            long done = session.completed();
            progress.update(String.format(Locale.ROOT, "%s: %.0f s, %,d requests, %,.0f/s", label, seconds, done,
                    seconds == 0 ? 0 : done / seconds));
        }, 1, 1, TimeUnit.SECONDS);
        return ticker;
    }

    /** Heap in use after a full collection; the collection is outside the measured window. */
    static long heapUsedAfterCollection() {
        Runtime runtime = Runtime.getRuntime();
        System.gc();
        return runtime.totalMemory() - runtime.freeMemory();
    }
}
