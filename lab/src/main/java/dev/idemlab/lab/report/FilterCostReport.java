package dev.idemlab.lab.report;

import dev.idemlab.lab.load.FilterCostRow;
import java.util.List;
import java.util.Locale;

/**
 * The HTTP filter comparison of {@code lab load --filter-cost} as Markdown, which reads as well in a
 * terminal: per store and kind of request, the filtered, raw-writes and bare handlers side by side
 * (requests per second, p50 and p99, the server JVM's CPU per request), the filter's ratio to the
 * raw writes and its CPU over bare, the target and the verdict; then what each run's requests got.
 *
 * <p>Stateless and thread-safe.
 */
public final class FilterCostReport {

    private FilterCostReport() { }

    /**
     * The page.
     *
     * @param settingsLine what every run was: clients, provider latency, duration
     * @param servers one line per store's server, with its durability
     * @param rows in the order they ran
     */
    public static String markdown(String settingsLine, List<String> servers, List<FilterCostRow> rows) {
        StringBuilder page = new StringBuilder();
        page.append(settingsLine).append("\n\n");
        page.append("| store | request kind | req/s filtered | req/s raw-writes | req/s bare | filtered / raw "
                + "| p50 / p99 ms filtered | p50 / p99 ms raw-writes | p50 / p99 ms bare "
                + "| server CPU µs/req filtered | raw-writes | bare | filter CPU over bare µs | target | verdict |\n");
        page.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
        for (FilterCostRow row : rows) {
            page.append(String.format(Locale.ROOT,
                    "| %s | %s | %,.0f | %,.0f | %,.0f | %.2fx | %s | %s | %s | %.1f | %.1f | %.1f | %+.1f | %s | %s |%n",
                    row.store(), row.kind().label(), row.filtered().throughput(), row.rawWrites().throughput(),
                    row.bare().throughput(), row.ratioToRaw(), latency(row.filtered()), latency(row.rawWrites()),
                    latency(row.bare()), row.filtered().cpuMicrosPerRequest(), row.rawWrites().cpuMicrosPerRequest(),
                    row.bare().cpuMicrosPerRequest(), row.cpuOverBareMicros(), row.target(), row.verdict()));
        }
        page.append("\nWhat each run's requests got (filtered; raw-writes):\n\n");
        for (FilterCostRow row : rows) {
            page.append("* ").append(row.store()).append(", ").append(row.kind().label()).append(": ")
                    .append(row.answers()).append("; ").append(row.rawAnswers()).append('\n');
        }
        page.append("\nServers (durability as read back from each):\n\n");
        servers.forEach(server -> page.append("* ").append(server).append('\n'));
        return page.toString();
    }

    private static String latency(FilterCostRow.Measure measure) {
        return String.format(Locale.ROOT, "%.2f / %.2f", measure.latency().p50(), measure.latency().p99());
    }
}
