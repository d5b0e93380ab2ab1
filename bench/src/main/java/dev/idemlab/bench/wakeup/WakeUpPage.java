package dev.idemlab.bench.wakeup;

import dev.idemlab.bench.wakeup.WakeUpHarness.Row;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The wake-up table as a Markdown page: what was run, on what, and the figures. Stateless. */
final class WakeUpPage {

    private WakeUpPage() { }

    static String render(List<Row> rows, List<String> servers, List<String> subscriptionCosts, int rounds) {
        StringBuilder page = new StringBuilder();
        page.append("# Waking the waiters: the answer after the holder's\n\n")
                .append("A WAIT caller that found the key held gets its answer this long after the holder got its ")
                .append("own (median, p99 and max over every waiter of every round; zero when it had its answer ")
                .append("first). The coordinator's waiters are woken by the store (memory listeners, Redis pub/sub ")
                .append("from the complete script, PostgreSQL LISTEN/NOTIFY), and the notification carries the ")
                .append("record the holder left, so a woken waiter answers without reading the store again; the ")
                .append("Redisson row is the idiom users write instead, an RLock around the action, on the same ")
                .append("Redis in the same run, its waiters taking the lock one after another.\n\n")
                .append("| store | waiter | waiters | samples | median ms | p99 ms | max ms | target |\n")
                .append("|---|---|---|---|---|---|---|---|\n");
        for (Row row : rows) {
            page.append(String.format(Locale.ROOT, "| %s | %s | %d | %d | %.3f | %.3f | %.3f | %s |%n", row.store(),
                    row.who(), row.waiters(), row.delays().getTotalCount(), median(row), p99(row),
                    row.delays().getMaxValue() / 1e6, verdict(row, rows)));
        }
        page.append("\nTargets (reported, not asserted): median <= 1 ms and p99 <= 2 ms on memory and Redis, ")
                .append("p99 <= 5 ms on PostgreSQL, ahead of the Redisson waiter at 1 and 10 waiters.\n\n")
                .append("Cost of an idle subscription (a waiter's subscribe, then close; on PostgreSQL a subscribe ")
                .append("also marks the row watched, one round trip, so that completions nobody waits for notify ")
                .append("no one):\n\n");
        subscriptionCosts.forEach(cost -> page.append("* ").append(cost).append('\n'));
        page.append("\n## How it was measured\n\n")
                .append("* rounds: ").append(rounds).append(" per row (a quarter of that at 100 waiters), after a warm-up\n")
                .append("* servers, as each reported itself: ").append(String.join("; ", servers)).append('\n')
                .append("* durability: the private Redis runs without persistence; the bundled PostgreSQL runs with ")
                .append("the embedded defaults (fsync off, synchronous_commit off). Waking does not depend on either.\n")
                .append("* a shared 2-core machine: read the ratios between rows of the same run, not the absolute times.\n");
        return page.toString();
    }

    private static double median(Row row) {
        return row.delays().getValueAtPercentile(50) / 1e6;
    }

    private static double p99(Row row) {
        return row.delays().getValueAtPercentile(99) / 1e6;
    }

    /**
     * Met or missed, for the coordinator's rows: median and p99 against the store's target, and at 1
     * and 10 waiters a median below the Redisson waiter's on the same store. The anchor has none.
     */
    static String verdict(Row row, List<Row> rows) {
        if (!row.who().startsWith(WakeUpHarness.OURS)) {
            return "(anchor)";
        }
        List<String> missed = new ArrayList<>();
        boolean postgres = row.store().equals("postgres");
        if (!postgres && median(row) > 1.0) {
            missed.add(String.format(Locale.ROOT, "median %.2f > 1", median(row)));
        }
        double p99Limit = postgres ? 5.0 : 2.0;
        if (p99(row) > p99Limit) {
            missed.add(String.format(Locale.ROOT, "p99 %.2f > %.0f", p99(row), p99Limit));
        }
        if (row.waiters() <= 10) {
            rows.stream()
                    .filter(anchor -> !anchor.who().startsWith(WakeUpHarness.OURS) && anchor.store().equals(row.store())
                            && anchor.waiters() == row.waiters())
                    .filter(anchor -> median(anchor) <= median(row))
                    .forEach(anchor -> missed.add("not ahead of " + anchor.who()));
        }
        return missed.isEmpty() ? "met" : "**missed**: " + String.join(", ", missed);
    }
}
