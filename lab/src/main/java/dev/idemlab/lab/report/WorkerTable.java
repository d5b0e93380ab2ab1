package dev.idemlab.lab.report;

import dev.idemlab.lab.load.LatencySummary;
import dev.idemlab.lab.load.LoadRun;
import dev.idemlab.lab.load.WorkerRun;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The per-worker rows of an HTTP load run, for the table and the Markdown page: each worker
 * process's requests, throughput and latency, then the run's total (every worker's histogram merged;
 * throughput over the longest worker's time). Duplicate charges are the run's, from the ledger, in
 * the main table: a worker only knows what it was answered. Stateless and thread-safe.
 */
final class WorkerTable {

    private static final String[] HEADINGS = {"policy", "worker", "pid", "requests", "duplicates handed off",
        "req/s", "p50 ms", "p99 ms", "max ms"};

    private WorkerTable() { }

    /** Whether any of {@code runs} went over HTTP from worker processes. */
    static boolean applies(List<LoadRun> runs) {
        return runs.stream().anyMatch(run -> !run.workers().isEmpty());
    }

    /** One line on what the workers were. */
    static String title(List<LoadRun> runs, int clients) {
        int workers = runs.stream().mapToInt(run -> run.workers().size()).max().orElse(0);
        return String.format(Locale.ROOT, "over HTTP: %d worker JVM(s) of %d clients each, JDK HttpClients to one demo "
                + "payment API on 127.0.0.1; each duplicate sent by another worker than its first request", workers, clients);
    }

    /** The heading row, then per run its workers and its total. */
    static List<String[]> rows(List<LoadRun> runs) {
        List<String[]> rows = new ArrayList<>();
        rows.add(HEADINGS.clone());
        for (LoadRun run : runs) {
            for (WorkerRun worker : run.workers()) {
                rows.add(row(run.policyName(), Integer.toString(worker.worker()), Long.toString(worker.pid()),
                        worker.requests(), worker.retriesSent(), worker.throughput(), worker.latency()));
            }
            if (!run.workers().isEmpty()) {
                rows.add(row(run.policyName(), "total", "", run.check().requests(), run.retriesSent(), run.throughput(),
                        run.latency()));
            }
        }
        return rows;
    }

    private static String[] row(String policy, String worker, String pid, long requests, long handedOff,
                                double throughput, LatencySummary latency) {
        return new String[] {policy, worker, pid, Long.toString(requests), Long.toString(handedOff),
            LoadColumn.decimal(throughput, 0), LoadColumn.decimal(latency.p50(), 2),
            LoadColumn.decimal(latency.p99(), 2), LoadColumn.decimal(latency.max(), 2)};
    }
}
