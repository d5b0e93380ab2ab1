package dev.idemlab.lab.report;

import dev.idemlab.lab.load.LoadRun;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * One column of the load tables: its heading for people, its CSV name, and its cell. The table, the
 * Markdown page and the CSV file share these, so that they never disagree. Immutable.
 *
 * @param heading the heading in the table and the Markdown page, or {@code null} for CSV only
 * @param csvName the CSV header
 * @param cell the text of one run's cell
 */
record LoadColumn(String heading, String csvName, Function<LoadRun, String> cell) {

    /** The columns people read, store and policy first; the CSV has these and more. */
    static final List<LoadColumn> ALL = List.of(
            new LoadColumn("store", "store", run -> run.server().store()),
            new LoadColumn(null, "version", run -> run.server().version()),
            new LoadColumn(null, "origin", run -> run.server().origin().id()),
            new LoadColumn("policy", "policy", LoadRun::policyName),
            new LoadColumn(null, "promises_exactly_once", run -> String.valueOf(run.policy().promisesExactlyOnce())),
            new LoadColumn("requests", "requests", run -> count(run.check().requests())),
            new LoadColumn("retries", "retries", run -> count(run.retriesSent())),
            new LoadColumn("keys charged", "keys_charged", run -> count(run.check().keysCharged())),
            new LoadColumn("charges", "charges", run -> count(run.check().charges())),
            new LoadColumn("duplicate charges", "duplicate_charges", run -> count(run.check().duplicateCharges())),
            new LoadColumn("disagreements", "disagreements", run -> count(run.check().disagreements())),
            new LoadColumn(null, "responses_not_in_ledger", run -> count(run.check().responsesNotInLedger())),
            new LoadColumn(null, "split_keys", run -> count(run.check().splitKeys())),
            new LoadColumn("in-progress", "in_progress", run -> count(run.check().inProgress())),
            new LoadColumn("waits", "waits", run -> count(run.check().waits())),
            new LoadColumn("storage errors", "storage_errors", run -> count(run.check().storageErrors())),
            new LoadColumn("indeterminate", "indeterminate", run -> count(run.check().indeterminate())),
            new LoadColumn(null, "elapsed_s", run -> decimal(run.elapsedNanos() / 1e9, 2)),
            new LoadColumn("req/s", "throughput_per_s", run -> decimal(run.throughput(), 0)),
            new LoadColumn("p50 ms", "p50_ms", run -> decimal(run.latency().p50(), 2)),
            new LoadColumn("p90 ms", "p90_ms", run -> decimal(run.latency().p90(), 2)),
            new LoadColumn("p99 ms", "p99_ms", run -> decimal(run.latency().p99(), 2)),
            new LoadColumn("p99.9 ms", "p999_ms", run -> decimal(run.latency().p999(), 2)),
            new LoadColumn("max ms", "max_ms", run -> decimal(run.latency().max(), 2)),
            new LoadColumn(null, "heap_used_mb", run -> decimal(run.heapUsedBytes() / 1048576.0, 1)),
            new LoadColumn(null, "history_mb", run -> decimal(run.historyBytes() / 1048576.0, 1)));

    /** The columns of the table and the Markdown page. */
    static List<LoadColumn> forPeople() {
        return ALL.stream().filter(column -> column.heading() != null).toList();
    }

    private static String count(long value) {
        return Long.toString(value);
    }

    /** {@code value} with {@code places} decimals, in the root locale. */
    static String decimal(double value, int places) {
        return String.format(Locale.ROOT, "%." + places + "f", value);
    }
}
