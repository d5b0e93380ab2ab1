package dev.idemlab.lab.report;

import dev.idemlab.lab.load.FilterCostRow;
import java.util.List;
import java.util.Locale;

/**
 * The HTTP filter comparison of {@code lab load --filter-cost} as Markdown, which reads as well in a
 * terminal: per store and kind of request, requests per second through the filter and without it,
 * their ratio, both runs' p50 and p99, the target and the verdict.
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
        page.append("| store | request kind | filtered req/s | unfiltered req/s | ratio | filtered p50 ms "
                + "| filtered p99 ms | unfiltered p50 ms | unfiltered p99 ms | target | verdict | filtered answers |\n");
        page.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
        for (FilterCostRow row : rows) {
            page.append(String.format(Locale.ROOT, "| %s | %s | %,.0f | %,.0f | %.2fx | %.2f | %.2f | %.2f | %.2f | %s | %s | %s |%n",
                    row.store(), row.kind().label(), row.filtered().throughput(), row.unfiltered().throughput(),
                    row.ratio(), row.filtered().latency().p50(), row.filtered().latency().p99(),
                    row.unfiltered().latency().p50(), row.unfiltered().latency().p99(),
                    row.target().isPresent() ? String.format(Locale.ROOT, ">= %.1fx", row.target().getAsDouble())
                            : "none", row.verdict(), row.answers()));
        }
        page.append("\nServers (durability as read back from each):\n\n");
        servers.forEach(server -> page.append("* ").append(server).append('\n'));
        return page.toString();
    }
}
