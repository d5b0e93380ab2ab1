package dev.idemlab.lab.report;

import dev.idemlab.lab.load.FilterCostRow;
import dev.idemlab.lab.load.FlightProfile;
import dev.idemlab.lab.load.SampleCostRow;
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

    /**
     * The starter's path: each sample's charge endpoint with the library on and off, per store and kind.
     *
     * @param rows in the order they ran; none (and no notes) gives an empty section
     * @param notes why a sample was not measured, one line each
     */
    public static String samples(List<SampleCostRow> rows, List<String> notes) {
        if (rows.isEmpty() && notes.isEmpty()) {
            return "";
        }
        StringBuilder page = new StringBuilder("\n### The starter's path: the samples with and without the library\n\n");
        page.append("Each Spring Boot sample in a fresh JVM of its own (the same heap), its charge endpoint with the "
                + "library on, then off by one property (the servlet sample: `idempotency.aspect.enabled=false`, "
                + "so the `@Idempotent` method runs as a plain one; the WebFlux sample: "
                + "`idempotency.web.enabled=false`, so no filter), the same clients, store and provider. Off, "
                + "every request charges.\n\n");
        page.append("| sample | store | request kind | req/s on | req/s off | on / off | p50 / p99 ms on "
                + "| p50 / p99 ms off | server CPU µs/req on | off | CPU over off µs | answered as its kind |\n");
        page.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (SampleCostRow row : rows) {
            page.append(String.format(Locale.ROOT, "| %s | %s | %s | %,.0f | %,.0f | %.2fx | %s | %s | %.1f | %.1f "
                            + "| %+.1f | %s |%n", row.sample(), row.store(), row.kind().label(),
                    row.guarded().throughput(), row.unguarded().throughput(), row.ratio(), latency(row.guarded()),
                    latency(row.unguarded()), row.guarded().cpuMicrosPerRequest(),
                    row.unguarded().cpuMicrosPerRequest(), row.cpuOverUnguardedMicros(),
                    row.clean() ? "yes" : "no: " + row.unclean()));
        }
        if (!rows.isEmpty()) {
            page.append("\nWhat each guarded run's requests got:\n\n");
            rows.forEach(row -> page.append("* ").append(row.sample()).append(", ").append(row.store()).append(", ")
                    .append(row.kind().label()).append(": ").append(row.guardedAnswers()).append('\n'));
        }
        notes.forEach(note -> page.append("\n").append(note).append('\n'));
        return page.toString();
    }

    /**
     * Where each recorded run's server time and allocations went, by part of the request: per run, the
     * share of its CPU samples and of its sampled allocation, and the totals they are shares of.
     *
     * @param profiles in the order the runs ran; none gives an empty section
     */
    public static String profiles(List<FlightProfile> profiles) {
        if (profiles.isEmpty()) {
            return "";
        }
        StringBuilder page = new StringBuilder("\n### Where the server's time went\n\n");
        page.append("Per measured run, from its server's flight recording: the share of the CPU samples, then of "
                + "the sampled allocation, whose innermost frame that belongs to a part belongs to it (Jackson "
                + "called by the fingerprint counts as the fingerprint, the handler called through the filter "
                + "as the handler). The JIT's and the collector's threads are not sampled.\n\n| part |");
        StringBuilder rule = new StringBuilder("|---|");
        for (FlightProfile profile : profiles) {
            page.append(' ').append(profile.label()).append(" |");
            rule.append("---:|");
        }
        page.append('\n').append(rule).append('\n');
        for (FlightProfile.Part part : FlightProfile.Part.values()) {
            page.append("| ").append(part.label()).append(" |");
            for (FlightProfile profile : profiles) {
                page.append(String.format(Locale.ROOT, " %.1f%% / %.1f%% |",
                        share(profile.samples().getOrDefault(part, 0L), profile.totalSamples()),
                        share(profile.allocated().getOrDefault(part, 0L), profile.totalAllocated())));
            }
            page.append('\n');
        }
        page.append("| samples / allocation sampled |");
        for (FlightProfile profile : profiles) {
            page.append(String.format(Locale.ROOT, " %,d / %,.0f MB |", profile.totalSamples(),
                    profile.totalAllocated() / 1e6));
        }
        return page.append('\n').toString();
    }

    private static double share(long part, long total) {
        return total == 0 ? 0 : part * 100.0 / total;
    }

    private static String latency(FilterCostRow.Measure measure) {
        return String.format(Locale.ROOT, "%.2f / %.2f", measure.latency().p50(), measure.latency().p99());
    }
}
