package dev.idemlab.lab.load;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyStats;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.lab.http.DemoServer;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.provider.FakePaymentProvider;
import java.io.IOException;
import java.lang.ref.Reference;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import org.HdrHistogram.Histogram;

/**
 * {@code lab load --transport http --workers N}: the load of {@link LoadGenerator}, with every request
 * sent over real HTTP by worker processes ({@link WorkerFleet}) to one demo payment API
 * ({@link DemoServer}) on one store. The service and its provider live in this JVM, so the ledger
 * is read here, from the provider, and laid against every worker's answers merged into one history:
 * the same {@link LedgerCheck} as in process. Each run gets a fresh store client, provider and
 * server; the workers warm up against a throwaway server on another store client first.
 *
 * <p>Not thread-safe: run one load at a time.
 */
public final class HttpLoadGenerator {

    private final LoadSettings settings;
    private final int workers;
    private final LoadProgress progress;

    /**
     * @param settings the load's shape and stop; clients are per worker, a request count is shared out
     * @param workers how many worker processes, at least 1 (and at most the request count, if any)
     * @param progress where progress goes; {@link LoadProgress#NONE} for none
     */
    public HttpLoadGenerator(LoadSettings settings, int workers, LoadProgress progress) {
        this.settings = Objects.requireNonNull(settings, "settings");
        if (workers < 1 || (settings.stopsByCount() && settings.requests() < workers)) {
            throw new IllegalArgumentException("invalid number of workers: " + workers);
        }
        this.workers = workers;
        this.progress = Objects.requireNonNull(progress, "progress");
    }

    /**
     * Starts the servers and the workers, runs the measured load, checks it against the ledger, and
     * stops whatever it started, whether or not the run succeeded.
     *
     * @throws WorkerFailure naming a worker that failed
     * @throws IOException if a server or a worker cannot be started
     * @throws InterruptedException if this thread is interrupted while the load runs
     */
    public LoadRun run(StoreBackend backend, LabPolicy policy) throws IOException, InterruptedException {
        IdempotencyConfig config = IdempotencyConfig.ofDefaults();
        Duration waitTimeout = config.waitTimeout();
        FakePaymentProvider provider = FakePaymentProvider.builder().latency(settings.providerLatency()).build();
        FakePaymentProvider scratch = FakePaymentProvider.builder().latency(Duration.ZERO).build();
        try (IdempotencyStore store = backend.openStore(); IdempotencyStore warmUpStore = backend.openStore();
             DemoServer server = DemoServer.start(store, policy, config, provider, provider::failNextCalls, 0);
             DemoServer warmUp = DemoServer.start(warmUpStore, policy, config, scratch, scratch::failNextCalls, 0);
             WorkerFleet fleet = WorkerFleet.start(settings, workers, server.uri(), warmUp.uri(), waitTimeout)) {
            fleet.awaitReady();
            warmUp.close();
            String label = String.format(Locale.ROOT, "%s/%s over HTTP, %d worker(s)", backend.name(),
                    policy.name().toLowerCase(Locale.ROOT), workers);
            long start = System.nanoTime();
            ScheduledExecutorService ticker = LoadGenerator.startProgress(progress, label, fleet, start);
            try {
                fleet.run();
            } finally {
                ticker.shutdownNow();
            }
            List<WorkerReport> reports = fleet.reports();
            ChargeHistory history = new ChargeHistory();
            Histogram latencies = LatencyRecorder.newHistogram();
            reports.forEach(report -> {
                report.addTo(history);
                latencies.add(report.histogram());
            });
            IdempotencyStats stats = server.coordinator().stats();
            LedgerCheck check = HistoryChecker.check(policy, history, provider.ledger(), stats)
                    .withWaits(stats.count(Outcome.WAITED));
            long heapUsed = LoadGenerator.heapUsedAfterCollection();
            Reference.reachabilityFence(history);
            Reference.reachabilityFence(provider);
            long elapsed = reports.stream().mapToLong(WorkerReport::elapsedNanos).max().orElse(0);
            progress.finished(String.format(Locale.ROOT, "%s: %,d requests checked in %.1f s", label,
                    check.requests(), (System.nanoTime() - start) / 1e9));
            return new LoadRun(backend.server(), check, LatencySummary.of(latencies), elapsed, fleet.retriesSent(),
                    heapUsed, history.footprintBytes(), 0, reports.stream().map(WorkerReport::row).toList());
        }
    }
}
