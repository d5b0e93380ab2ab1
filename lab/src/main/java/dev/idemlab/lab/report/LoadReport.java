package dev.idemlab.lab.report;

import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.lab.load.LoadComparison;
import dev.idemlab.lab.load.LoadRun;
import dev.idemlab.lab.load.LoadSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The report of {@code lab load}: a plain table, a Markdown page or JSON, and the CSV file. Every
 * form names each store's server and ends with the verdict against the ledger. Stateless and
 * thread-safe.
 */
public final class LoadReport {

    private LoadReport() { }

    /** The report in {@code format}. */
    public static String render(ReportFormat format, LoadComparison comparison) {
        return switch (format) {
            case TABLE -> table(comparison);
            case JSON -> LoadJson.render(comparison);
            case MARKDOWN -> markdown(comparison);
        };
    }

    /** One row per store and policy, every column, numbers without grouping. */
    public static String csv(LoadComparison comparison) {
        StringBuilder out = new StringBuilder();
        out.append(LoadColumn.ALL.stream().map(LoadColumn::csvName).collect(Collectors.joining(","))).append('\n');
        for (LoadRun run : comparison.runs()) {
            out.append(LoadColumn.ALL.stream().map(column -> csvCell(column.cell().apply(run)))
                    .collect(Collectors.joining(","))).append('\n');
        }
        return out.toString();
    }

    /**
     * As {@link #settingsLine(LoadSettings)}; over HTTP the clients are each worker JVM's, and the line
     * says how many ran in all.
     */
    static String settingsLine(LoadComparison comparison) {
        int workers = comparison.runs().stream().mapToInt(run -> run.workers().size()).max().orElse(0);
        String line = settingsLine(comparison.settings());
        if (workers == 0) {
            return line;
        }
        int each = comparison.settings().clients();
        return String.format(Locale.ROOT, "%d worker JVM(s) of %d clients each (%d in all), ", workers, each,
                workers * each) + line.replaceFirst("^" + each + " closed-loop clients, ", "closed loop, ");
    }

    /** "32 closed-loop clients, 20% concurrent retries, provider 5 ms per charge, ...". */
    static String settingsLine(LoadSettings settings) {
        String stop = settings.stopsByCount() ? String.format(Locale.ROOT, "%,d requests per run", settings.requests())
                : duration(settings.duration()) + " per run";
        String loop = settings.openLoop()
                ? String.format(Locale.ROOT, "open loop at %s requests/s (latency from each request's intended start), "
                        + "at most %d in flight", trim(settings.rate()), settings.clients())
                : settings.clients() + " closed-loop clients";
        return String.format(Locale.ROOT, "%s, %s%% concurrent retries, provider %d ms per charge, "
                        + "%,d keys, %s, seed %d", loop, trim(settings.retryRate() * 100),
                settings.providerLatency().toMillis(), settings.keys(), stop, settings.seed());
    }

    /** What the ledger says, in one or two sentences. */
    static String verdict(LoadComparison comparison) {
        long runDuplicates = duplicates(comparison, LabPolicy.RUN);
        List<String> lines = new ArrayList<>();
        if (comparison.passed()) {
            lines.add("verdict: every policy kept its promise against the ledger"
                    + (ranExactlyOnce(comparison) ? "; wait and raise charged no key twice on any store" : ""));
        } else {
            lines.add("verdict: FAILED");
            comparison.failures().forEach(failure -> lines.add("  " + failure));
        }
        if (comparison.runs().stream().anyMatch(run -> run.policy() == LabPolicy.RUN)) {
            lines.add("run (a result cache) charged " + runDuplicates
                    + " duplicate(s): expected, it does not reserve the key before charging");
        }
        return String.join("\n", lines) + "\n";
    }

    private static String table(LoadComparison comparison) {
        StringBuilder out = new StringBuilder("load: ").append(settingsLine(comparison)).append('\n');
        List<LoadColumn> columns = LoadColumn.forPeople().subList(1, LoadColumn.forPeople().size());
        for (String store : comparison.stores()) {
            List<LoadRun> runs = runsOf(comparison, store);
            out.append("\nstore ").append(runs.get(0).server().describeWithDurability()).append('\n');
            List<String[]> rows = new ArrayList<>();
            rows.add(columns.stream().map(LoadColumn::heading).toArray(String[]::new));
            runs.forEach(run -> rows.add(columns.stream().map(c -> c.cell().apply(run)).toArray(String[]::new)));
            padded(rows, out);
            if (WorkerTable.applies(runs)) {
                out.append('\n').append(WorkerTable.title(runs, comparison.settings().clients())).append('\n');
                padded(WorkerTable.rows(runs), out);
            }
        }
        return out.append('\n').append(verdict(comparison)).toString();
    }

    private static String markdown(LoadComparison comparison) {
        StringBuilder out = new StringBuilder();
        out.append("Load: ").append(settingsLine(comparison)).append(".\n\n");
        for (String store : comparison.stores()) {
            out.append("* ").append(runsOf(comparison, store).get(0).server().describeWithDurability()).append(": ")
                    .append(String.format(Locale.ROOT, "%,d", comparison.requestsChecked(store)))
                    .append(" requests checked against the ledger\n");
        }
        List<LoadColumn> columns = LoadColumn.forPeople();
        out.append("\n| ").append(columns.stream().map(LoadColumn::heading).collect(Collectors.joining(" | ")))
                .append(" |\n|").append("---|".repeat(columns.size())).append('\n');
        for (LoadRun run : comparison.runs()) {
            out.append("| ").append(columns.stream().map(c -> c.cell().apply(run)).collect(Collectors.joining(" | ")))
                    .append(" |\n");
        }
        for (String store : comparison.stores()) {
            List<LoadRun> runs = runsOf(comparison, store);
            if (WorkerTable.applies(runs)) {
                out.append("\n").append(store).append(" ").append(WorkerTable.title(runs, comparison.settings().clients()))
                        .append(":\n\n");
                List<String[]> rows = WorkerTable.rows(runs);
                out.append("| ").append(String.join(" | ", rows.get(0))).append(" |\n|")
                        .append("---|".repeat(rows.get(0).length)).append('\n');
                rows.subList(1, rows.size()).forEach(row -> out.append("| ").append(String.join(" | ", row)).append(" |\n"));
            }
        }
        return out.append('\n').append(verdict(comparison).replace("\n  ", "\n* ")).toString();
    }

    private static List<LoadRun> runsOf(LoadComparison comparison, String store) {
        return comparison.runs().stream().filter(run -> run.server().store().equals(store)).toList();
    }

    private static long duplicates(LoadComparison comparison, LabPolicy policy) {
        return comparison.runs().stream().filter(run -> run.policy() == policy)
                .mapToLong(run -> run.check().duplicateCharges()).sum();
    }

    private static boolean ranExactlyOnce(LoadComparison comparison) {
        return comparison.runs().stream().anyMatch(run -> run.policy().promisesExactlyOnce());
    }

    private static void padded(List<String[]> rows, StringBuilder out) {
        int[] widths = new int[rows.get(0).length];
        for (String[] row : rows) {
            for (int c = 0; c < row.length; c++) {
                widths[c] = Math.max(widths[c], row[c].length());
            }
        }
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder(" ");
            for (int c = 0; c < row.length; c++) {
                String cell = row[c];
                line.append("  ").append(c == 0 ? cell + " ".repeat(widths[c] - cell.length())
                        : " ".repeat(widths[c] - cell.length()) + cell);
            }
            out.append(line).append('\n');
        }
    }

    private static String csvCell(String text) {
        return text.contains(",") || text.contains("\"") ? '"' + text.replace("\"", "\"\"") + '"' : text;
    }

    private static String duration(java.time.Duration duration) {
        long ms = duration.toMillis();
        return ms % 60_000 == 0 ? ms / 60_000 + " min" : ms % 1000 == 0 ? ms / 1000 + " s" : ms + " ms";
    }

    private static String trim(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : String.format(Locale.ROOT, "%.1f", value);
    }
}
