package dev.idemlab.lab.nemesis;

import dev.idemlab.provider.Charge;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** The consumer nemesis's report: as text, or as a results page's row and the text under it. Stateless. */
public final class ConsumerReport {

    private static final int LISTED = 30;

    private ConsumerReport() { }

    /** The command that replays the run's schedules. */
    public static String reproduce(ConsumerHistory history) {
        ConsumerNemesis.Settings settings = history.settings();
        return "java -jar lab/target/lab.jar nemesis --through kafka --store " + storeName(history) + " --seed "
                + settings.seed() + " --duration " + settings.duration().toSeconds() + "s --lease-ms "
                + settings.lease().toMillis() + (settings.downstreamKey() ? " --downstream-key" : "")
                + (settings.sabotage() == Sabotage.NONE ? "" : " --sabotage " + settings.sabotage().id());
    }

    private static String storeName(ConsumerHistory history) {
        return history.storeName();
    }

    public static String text(ConsumerNemesisResult result) {
        ConsumerHistory history = result.history();
        StringBuilder out = new StringBuilder();
        out.append("nemesis on consumers: seed ").append(history.settings().seed()).append(", ")
                .append(history.settings().duration().toSeconds()).append(" s, lease ")
                .append(history.settings().lease().toMillis()).append(" ms, provider ")
                .append(history.settings().downstreamKey() ? "deduplicating on the downstream key" : "not deduplicating")
                .append(history.settings().sabotage() == Sabotage.NONE ? "" : ", SABOTAGE " + history.settings().sabotage().id())
                .append('\n');
        out.append("store:  ").append(history.store()).append('\n');
        out.append("broker: ").append(history.broker()).append(", topic of ").append(ConsumerNemesis.PARTITIONS)
                .append(" partitions, members' session ").append(ConsumerNemesis.SESSION_TIMEOUT_MS)
                .append(" ms and max.poll.interval.ms ").append(ConsumerNemesis.MAX_POLL_INTERVAL_MS)
                .append(", classic group protocol\n");
        for (String[] row : rows(result)) {
            out.append(String.format(Locale.ROOT, "  %-34s %s%n", row[0], row[1]));
        }
        if (result.passed()) {
            out.append("0 violations\n");
        } else {
            out.append(result.violations().size()).append(" violations, by rule: ").append(result.byRule()).append('\n');
            result.violations().stream().limit(LISTED).forEach(violation -> {
                out.append("  ").append(violation.rule()).append(" key ").append(violation.key()).append(": ")
                        .append(violation.detail()).append('\n');
                violation.witness().forEach(line -> out.append("      ").append(line).append('\n'));
            });
            if (result.violations().size() > LISTED) {
                out.append("  ... and ").append(result.violations().size() - LISTED).append(" more\n");
            }
        }
        if (!result.explained().isEmpty()) {
            out.append("charges beyond one per key, each explained by an event of its own:\n");
            result.explained().forEach(line -> out.append("  ").append(line).append('\n'));
        }
        out.append("faults, as injected:\n");
        long first = history.events().stream().mapToLong(ConsumerEvent::micros).min().orElse(0);
        history.faults().forEach(fault -> out.append(String.format(Locale.ROOT, "  %7.1f s to %7.1f s  %s%n",
                (fault.startedMicros() - first) / 1e6, (fault.endedMicros() - first) / 1e6, fault)));
        out.append("reproduce: ").append(reproduce(history)).append('\n');
        return out.toString();
    }

    /** The results page's table (header and one row), then the text report in a code block. */
    public static String markdown(ConsumerNemesisResult result) {
        List<String[]> rows = rows(result);
        StringBuilder out = new StringBuilder();
        out.append("| store | ").append(rows.stream().map(row -> row[0]).collect(Collectors.joining(" | "))).append(" | violations |\n");
        out.append("|---|").append("---|".repeat(rows.size())).append("---|\n");
        out.append("| ").append(storeName(result.history())).append(" | ")
                .append(rows.stream().map(row -> row[1].replace("|", "/")).collect(Collectors.joining(" | ")))
                .append(" | ").append(result.violations().size()).append(result.passed() ? "" : " " + result.byRule())
                .append(" |\n\n```text\n").append(text(result)).append("```\n");
        return out.toString();
    }

    private static List<String[]> rows(ConsumerNemesisResult result) {
        ConsumerHistory history = result.history();
        Map<String, Long> charges = history.ledger().stream().collect(Collectors.groupingBy(Charge::orderId, Collectors.counting()));
        long extra = charges.values().stream().mapToLong(n -> n - 1).sum();
        Map<String, Long> outcomes = history.of('F').stream().collect(Collectors.groupingBy(ConsumerEvent::detail,
                TreeMap::new, Collectors.counting()));
        Map<String, Long> faults = history.faults().stream().filter(ConsumerFault::injected).collect(Collectors.groupingBy(
                fault -> fault.kind().id(), TreeMap::new, Collectors.counting()));
        long failedFaults = history.faults().stream().filter(fault -> !fault.injected()).count();
        long commits = history.of('C').size();
        long refused = history.of('C').stream().filter(commit -> !commit.detail().equals("ok")).count();
        return List.of(
                new String[] {"seed", Long.toString(history.settings().seed())},
                new String[] {"records sent (keys, sent twice)", history.of('P').size() + " (" + result.workload().keys()
                        + ", " + result.workload().duplicates() + ")"},
                new String[] {"members started", Integer.toString(history.membersStarted())},
                new String[] {"deliveries finished", outcomes.toString()},
                new String[] {"commits checked (refused)", commits + " (" + refused + ")"},
                new String[] {"faults injected", faults + (failedFaults == 0 ? "" : ", " + failedFaults + " not in full")},
                new String[] {"charges (keys charged, beyond one)", history.ledger().size() + " (" + charges.size() + ", " + extra + ")"},
                new String[] {"committed / end offsets", history.committed() + " / " + history.ends()
                        + (history.settled() ? "" : " NOT SETTLED")},
                new String[] {"run time", String.format(Locale.ROOT, "%.1f s", history.elapsedMillis() / 1000.0)});
    }
}
