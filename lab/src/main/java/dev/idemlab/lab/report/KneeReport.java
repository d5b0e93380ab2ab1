package dev.idemlab.lab.report;

import dev.idemlab.lab.load.KneeStep;
import dev.idemlab.lab.load.StoreKnees;
import dev.idemlab.lab.load.raw.RawStores;
import java.util.List;
import java.util.Locale;

/**
 * The knees of {@code lab load --find-knee} as Markdown, which reads as well in a terminal: the summary
 * (store, coordinator knee, raw knee, ratio, target, verdict), the servers with their durability, and
 * every step of every search, so a reader can see how each knee was bracketed.
 *
 * <p>Stateless and thread-safe.
 */
public final class KneeReport {

    private KneeReport() { }

    /**
     * The page.
     *
     * @param settingsLine what every step ran: clients, retries, provider latency, step duration, bound
     * @param rows one per store, in the order they ran
     */
    public static String markdown(String settingsLine, List<StoreKnees> rows) {
        StringBuilder page = new StringBuilder();
        page.append(settingsLine).append("\n\n");
        page.append("| store | coordinator knee | raw knee | ratio | target | verdict |\n");
        page.append("|---|---:|---:|---:|---:|---|\n");
        for (StoreKnees row : rows) {
            page.append("| ").append(row.server().store())
                    .append(" | ").append(row.coordinator().describe())
                    .append(" | ").append(row.raw().describe())
                    .append(" | ").append(ratio(row))
                    .append(" | ").append(row.target().isPresent()
                            ? String.format(Locale.ROOT, ">= %.1fx", row.target().getAsDouble()) : "none")
                    .append(" | ").append(row.verdict()).append(" |\n");
        }
        page.append("\nRaw: the same arrivals, clients, provider, latency recorder and ledger check, with the store's "
                + "writes of a first call done by hand around the charge, records of the same size (")
                .append(String.join("; ", rows.stream().map(row -> row.server().store() + ": "
                        + RawStores.firstCallWrites(row.server().store())).toList()))
                .append("); a request that finds its key taken reads the record once and replays it, or is told "
                        + "in progress. No fingerprint, lease renewal, fencing, waiting or notification: the ratio is "
                        + "what those cost.\n");
        page.append("\nServers (durability as read back from each):\n\n");
        for (StoreKnees row : rows) {
            page.append("* ").append(row.server().describeWithDurability()).append('\n');
        }
        for (StoreKnees row : rows) {
            steps(page, row.server().store() + ", through the coordinator", row.coordinator().steps());
            steps(page, row.server().store() + ", raw", row.raw().steps());
        }
        return page.toString();
    }

    private static String ratio(StoreKnees row) {
        if (row.ratio().isEmpty()) {
            return "n/a";
        }
        String bound = row.ratioBound();
        if (bound.equals("unbounded")) {
            return "n/a (both above every rate tried)";
        }
        return (bound.isEmpty() ? "" : bound + " ") + String.format(Locale.ROOT, "%.2fx", row.ratio().getAsDouble());
    }

    private static void steps(StringBuilder page, String title, List<KneeStep> steps) {
        page.append("\n#### ").append(title).append("\n\n");
        page.append("| step | offered/s | answered/s | p99 ms | duplicate charges | verdict |\n");
        page.append("|---:|---:|---:|---:|---:|---|\n");
        for (KneeStep step : steps) {
            page.append(String.format(Locale.ROOT, "| %d | %,d | %,.0f | %.2f | %d | %s |%n", step.number(),
                    step.rate(), step.measured().throughput(), step.measured().p99Ms(),
                    step.measured().duplicateCharges(), step.passed() ? "pass" : "fail: " + String.join(", ", step.why())));
        }
    }
}
