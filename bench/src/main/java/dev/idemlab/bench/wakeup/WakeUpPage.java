package dev.idemlab.bench.wakeup;

import dev.idemlab.bench.wakeup.WakeUpHarness.Row;

import java.time.LocalDate;
import java.util.List;
import java.util.Locale;

/** The wake-up table as a Markdown page: what was run, on what, and the figures. Stateless. */
final class WakeUpPage {

    private WakeUpPage() { }

    static String render(List<Row> rows, List<String> servers, List<String> subscriptionCosts, String command,
                         String commit, int rounds) {
        StringBuilder page = new StringBuilder();
        page.append("# Waking the waiters: the answer after the holder's\n\n")
                .append("A WAIT caller that found the key held gets its answer this long after the holder got its ")
                .append("own (median, p99 and max over every waiter of every round). The coordinator's waiters are ")
                .append("woken by the store (memory listeners, Redis pub/sub from the complete script, PostgreSQL ")
                .append("LISTEN/NOTIFY); the Redisson row is the idiom users write instead, an RLock around the ")
                .append("action, on the same Redis in the same run, its waiters taking the lock one after another.\n\n")
                .append("| store | waiter | waiters | samples | median ms | p99 ms | max ms |\n")
                .append("|---|---|---|---|---|---|---|\n");
        for (Row row : rows) {
            page.append(String.format(Locale.ROOT, "| %s | %s | %d | %d | %.3f | %.3f | %.3f |%n", row.store(),
                    row.who(), row.waiters(), row.delays().getTotalCount(),
                    row.delays().getValueAtPercentile(50) / 1e6, row.delays().getValueAtPercentile(99) / 1e6,
                    row.delays().getMaxValue() / 1e6));
        }
        page.append("\nTargets (reported, not asserted): median <= 1 ms and p99 <= 2 ms on memory and Redis, ")
                .append("p99 <= 5 ms on PostgreSQL, ahead of the Redisson waiter at 1 and 10 waiters.\n\n")
                .append("Cost of an idle subscription (a waiter's subscribe, then close):\n\n");
        subscriptionCosts.forEach(cost -> page.append("* ").append(cost).append('\n'));
        page.append("\n## How it was measured\n\n")
                .append("* command: `").append(command).append("`\n")
                .append("* commit: `").append(commit).append("`\n")
                .append("* rounds: ").append(rounds).append(" per row (a quarter of that at 100 waiters), after a warm-up\n")
                .append("* JDK: ").append(System.getProperty("java.vendor")).append(' ')
                .append(System.getProperty("java.version")).append("; cores: ")
                .append(Runtime.getRuntime().availableProcessors()).append("; date: ").append(LocalDate.now()).append('\n')
                .append("* servers: ").append(String.join("; ", servers)).append('\n')
                .append("* durability: the private Redis runs without persistence; the bundled PostgreSQL runs with ")
                .append("the embedded defaults (fsync off, synchronous_commit off). Waking does not depend on either.\n")
                .append("* a shared 2-core machine: read the ratios between rows of the same run, not the absolute times.\n");
        return page.toString();
    }
}
