package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.Outcome;
import dev.idemlab.lab.faults.FaultKind;
import dev.idemlab.lab.load.LedgerCheck;

import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * A nemesis run as text: what ran against what, the faults injected by kind, what the callers got,
 * the ledger's verdict, and for each violation (the first few keys) the key's history and a Mermaid
 * timeline; the command that reproduces the run closes it. Stateless.
 */
public final class NemesisReport {

    private static final int KEYS_SHOWN = 3;
    /** The violations listed one by one; the rest are counted by rule. */
    private static final int VIOLATIONS_LISTED = 30;
    private static final List<String> GRAVITY = List.of("duplicate-charge", "answer-not-in-ledger", "answer-of-another-request", "no-downstream-key",
            "fence-repeated", "fence-not-increasing", "action-after-cancel",
            "no-answer", "outlived-bound");

    private NemesisReport() { }

    /** The report of {@code result}. */
    public static String text(NemesisResult result) {
        StringBuilder out = new StringBuilder();
        pass(out, result, "");
        if (result.downstreamPass() != null) {
            out.append(System.lineSeparator()).append("same schedule, the provider deduplicating on the key:")
                    .append(System.lineSeparator());
            pass(out, result.downstreamPass(), "  ");
        }
        NemesisSettings settings = result.history().settings();
        out.append(result.passed() ? "nemesis: 0 violations" : "nemesis: VIOLATED")
                .append(String.format(Locale.ROOT, " (seed %d); reproduce: %s%n", settings.seed(), command(result.history())));
        return out.toString();
    }

    /** The header of the results page's table, whose rows {@link #markdown} writes. */
    public static final String TABLE_HEADER = "| store | server | seed | requests for | calls | keys | faults injected, by kind "
            + "| stalls observed | charges | beyond one per key (explained) | violations |" + System.lineSeparator()
            + "|---|---|---|---|---|---|---|---|---|---|---|" + System.lineSeparator();

    /**
     * {@code result} for the results page: its row of the table (first line), then a blank line and the
     * whole text report in a fenced block, with the Mermaid timelines of any violation after it.
     */
    public static String markdown(NemesisResult result) {
        NemesisHistory history = result.history();
        LedgerCheck ledger = result.verdict().ledgerCheck();
        int violations = result.verdict().violations().size()
                + (result.downstreamPass() == null ? 0 : result.downstreamPass().verdict().violations().size());
        long keys = history.calls().stream().mapToInt(call -> call.key).distinct().count();
        String row = String.format(Locale.ROOT, "| %s | %s | %d | %d s | %,d | %,d | %s | %s | %,d | %d (%d) | %d |",
                history.server().store() + layerCell(history.settings()),
                history.server().describeWithDurability(), history.settings().seed(),
                history.settings().duration().toSeconds(), history.calls().size(), keys, faults(history),
                stallsCell(history),
                ledger.charges(), ledger.duplicateCharges(), result.verdict().explainedDuplicates(), violations);
        String text = text(result);
        int charts = text.indexOf("```mermaid");
        String nl = System.lineSeparator();
        return row + nl + nl + "```" + nl + (charts < 0 ? text : text.substring(0, charts)) + "```" + nl
                + (charts < 0 ? "" : nl + text.substring(charts));
    }

    /** The command line that runs the same schedule again. */
    public static String command(NemesisHistory history) {
        NemesisSettings settings = history.settings();
        return "java -jar lab/target/lab.jar nemesis --store " + history.server().store() + " --seed " + settings.seed()
                + " --duration " + settings.duration().toSeconds() + "s"
                + (settings.through() == Through.COORDINATOR ? "" : " --through " + settings.through().id())
                + (settings.clients() == Clients.BEARER ? "" : " --clients " + settings.clients().id())
                + (settings.sabotage() == Sabotage.NONE ? "" : " --sabotage " + settings.sabotage().id())
                + (settings.localEffects() ? " --effects local" : "")
                + (settings.downstreamKey() ? " --downstream-key" : "");
    }

    private static void pass(StringBuilder out, NemesisResult result, String indent) {
        NemesisHistory history = result.history();
        NemesisVerdict verdict = result.verdict();
        LedgerCheck ledger = verdict.ledgerCheck();
        String nl = System.lineSeparator();
        out.append(indent).append(String.format(Locale.ROOT, "nemesis  store: %s  through: %s  seed %d  %d s of requests, %.1f s in all%n",
                history.server().describeWithDurability(), through(history.settings()), history.settings().seed(),
                history.settings().duration().toSeconds(), history.elapsedNanos() / 1e9));
        out.append(indent).append(workload(history)).append(nl);
        out.append(indent).append("faults injected: ").append(faults(history)).append(nl);
        out.append(indent).append("stalls observed, not injected: ").append(stalls(history)).append(nl);
        out.append(indent).append("answers: ").append(answers(history)).append(nl);
        out.append(indent).append("fail-opens on a reserve seen landed: ").append(landedFailOpens(history)).append(nl);
        out.append(indent).append(String.format(Locale.ROOT,
                "storage errors %d, stale attempts %d, duplicate risk %d%n", history.stats().totalStorageErrors(),
                history.stats().stale(), history.stats().duplicateRisk()));
        out.append(indent).append(String.format(Locale.ROOT,
                "ledger: %,d charges for %,d keys; %d beyond one per key, %d explained%s; %d answers the ledger contradicts%n",
                ledger.charges(), ledger.keysCharged(), ledger.duplicateCharges(), verdict.explainedDuplicates(),
                verdict.explanations().isEmpty() ? "" : " " + verdict.explanations(), ledger.responsesNotInLedger()));
        out.append(indent).append("violations: ").append(verdict.violations().size());
        firstViolationAt(history, verdict).ifPresent(at -> out.append(", the first shown by ")
                .append(NemesisChecker.millis(at)).append(" of the run"));
        out.append(nl);
        violations(out, history, verdict, indent);
    }

    /**
     * How far into the run the history first shows a violation: for a double charge, when the key's second
     * charge began; for any other, when the key's first call answered. What a mutant's "caught after" reads.
     */
    static java.util.OptionalLong firstViolationAt(NemesisHistory history, NemesisVerdict verdict) {
        return verdict.violations().stream().mapToLong(violation -> {
            List<CallRecord> calls = history.calls().stream().filter(call -> call.key == violation.key()).toList();
            if (violation.rule().equals("duplicate-charge")) {
                return calls.stream().filter(call -> call.charged() != null).mapToLong(CallRecord::actionStartedAt)
                        .sorted().skip(1).findFirst().orElse(history.elapsedNanos());
            }
            return calls.stream().filter(CallRecord::answered).mapToLong(CallRecord::answeredAt).min()
                    .orElse(history.elapsedNanos());
        }).min();
    }

    /** For the results page's store cell: the layer, when not the bare coordinator, and what was broken on purpose. */
    private static String layerCell(NemesisSettings settings) {
        return (settings.through() == Through.COORDINATOR ? "" : ", through " + settings.through().id())
                + (settings.clients() == Clients.ANONYMOUS ? " with an anonymous client" : "")
                + (settings.clients() == Clients.NAMED_ANONYMOUS ? " with an anonymous client and one named anonymous" : "")
                + (settings.localEffects() ? ", local effects (orders through a workflow)" : "")
                + (settings.sabotage() == Sabotage.NONE ? "" : ", sabotage " + settings.sabotage().id());
    }

    /**
     * The layer the calls went through, in words: {@code coordinator}, {@code proxy}, or {@code http} or
     * {@code webflux} with its clients (which share their keys on purpose).
     */
    static String through(NemesisSettings settings) {
        if (settings.through() == Through.SAMPLE) {
            return "sample (the Spring Boot sample's JVM over HTTP, WAIT, failing closed; clients client-a, client-b "
                    + "with keys of their own; its coordinator's counters stay in its JVM)";
        }
        if (!settings.through().filter()) {
            return settings.through().id();
        }
        return settings.through().id() + (settings.through() == Through.WEBFLUX ? " (the WebFlux filter on Reactor Netty;"
                + " clients " : " (clients ") + String.join(", ", HttpClients.of(settings.clients()).names())
                + ", each sending every key for its own order)";
    }

    private static String workload(NemesisHistory history) {
        List<CallRecord> calls = history.calls();
        long keys = calls.stream().mapToInt(call -> call.key).distinct().count();
        long async = calls.stream().filter(call -> call.async).count();
        long cancelled = calls.stream().filter(call -> call.cancelledAt() != 0).count();
        long raise = calls.stream().filter(call -> call.policy == dev.idemlab.idempotency.InFlightPolicy.RAISE).count();
        return String.format(Locale.ROOT, "workload: %,d keys, %,d calls (%,d async, %,d of them cancelled; %,d under "
                        + "RAISE, the rest WAIT), lease %d ms%s", keys, calls.size(), async, cancelled, raise,
                history.settings().lease().toMillis(), (history.settings().sabotage() == Sabotage.NONE ? ""
                        : ", sabotage: " + history.settings().sabotage().id())
                        + (history.settings().localEffects() ? ", each request placing an order through a workflow of "
                        + "local effects (" + OrderBook.TABLE + " read back beside the answers)" : ""));
    }

    private static String faults(NemesisHistory history) {
        if (history.faults().isEmpty()) {
            return "none";
        }
        Map<FaultKind, Long> byKind = history.faults().stream()
                .collect(Collectors.groupingBy(FaultEvent::kind, () -> new EnumMap<>(FaultKind.class), Collectors.counting()));
        long failed = history.faults().stream().filter(fault -> !fault.injected()).count();
        return byKind.entrySet().stream().map(entry -> entry.getKey().id() + " " + entry.getValue())
                .collect(Collectors.joining(", ")) + (failed == 0 ? "" : " (" + failed + " could not be injected)");
    }

    private static String stallsCell(NemesisHistory history) {
        List<StallWatch.Stall> stalls = outsideFaults(history);
        long total = stalls.stream().mapToLong(StallWatch.Stall::nanos).sum();
        return stalls.isEmpty() ? "0" : String.format(Locale.ROOT, "%d (%.1f s)", stalls.size(), total / 1e9);
    }

    /**
     * The stalls the watch saw away from every injected fault of the store (and the second of recovery
     * after one): those the machine or the server made on their own. The watch's probe meets the injected
     * faults too, and those are counted as faults already.
     */
    static List<StallWatch.Stall> outsideFaults(NemesisHistory history) {
        return history.stalls().stream().filter(stall -> history.faults().stream()
                .filter(fault -> StoreFaults.onStore(fault.kind()))
                .noneMatch(fault -> fault.overlaps(stall.startedAt() - StoreFaults.RECOVERY, stall.endedAt())))
                .toList();
    }

    /**
     * How many calls failed open on a reserve the run then saw landed, and of those how many had a calm
     * for their settle before the marker could expire (the ones {@link SettledFailOpens} holds to it), and
     * how many follow-ups ({@link FailOpenFollowUps}) the run sent on their keys, and charged.
     */
    static String landedFailOpens(NemesisHistory history) {
        List<CallRecord> landed = history.calls().stream()
                .filter(call -> call.reserveLandedUntil() != 0 && call.outcome() == dev.idemlab.idempotency.Outcome.FAILED_OPEN)
                .toList();
        long calm = landed.stream().filter(call -> SettledFailOpens.settleCalm(history, call) != Long.MIN_VALUE).count();
        List<CallRecord> followUps = history.calls().stream().filter(CallRecord::followUp).toList();
        long charged = followUps.stream().filter(call -> call.charged() != null).count();
        return landed.size() + ", " + calm + " with a calm to settle in before the marker could expire; " + followUps.size()
                + " follow-ups sent on their keys, " + charged + " of them charged";
    }

    /** What the run's {@link StallWatch} saw: how many stalls, how long in all, the longest. */
    static String stalls(NemesisHistory history) {
        List<StallWatch.Stall> stalls = outsideFaults(history);
        if (stalls.isEmpty()) {
            return "none away from the injected faults (" + history.stalls().size() + " during them)";
        }
        long total = stalls.stream().mapToLong(StallWatch.Stall::nanos).sum();
        long longest = stalls.stream().mapToLong(StallWatch.Stall::nanos).max().orElse(0);
        return String.format(Locale.ROOT, "%d away from the injected faults (%.1f s in all, the longest %d ms; a "
                        + "probe of the store, on its own client or through the run's, pool included, or a wake-up "
                        + "of the watch %d ms late or more), %d during them",
                stalls.size(), total / 1e9, longest / 1_000_000, StallWatch.THRESHOLD / 1_000_000,
                history.stalls().size() - stalls.size());
    }

    private static String answers(NemesisHistory history) {
        Map<String, Long> counts = new TreeMap<>();
        for (CallRecord call : history.calls()) {
            String what = !call.answered() ? "no answer"
                    : call.outcome() != null ? call.outcome().name().toLowerCase(Locale.ROOT).replace('_', '-')
                    : call.errorKind() != null ? call.errorKind().id() : call.error();
            counts.merge(what, 1L, Long::sum);
        }
        return counts.entrySet().stream().map(entry -> entry.getKey() + " " + entry.getValue())
                .collect(Collectors.joining(", "));
    }

    private static void violations(StringBuilder out, NemesisHistory history, NemesisVerdict verdict, String indent) {
        String nl = System.lineSeparator();
        verdict.violations().stream().limit(VIOLATIONS_LISTED).forEach(violation -> {
            out.append(indent).append("  ").append(violation.rule()).append(" key ").append(violation.key())
                    .append(": ").append(violation.detail()).append(nl);
            for (String line : violation.witness()) {
                out.append(indent).append("    witness: ").append(line).append(nl);
            }
        });
        if (verdict.violations().size() > VIOLATIONS_LISTED) {
            // A broken layer breaks a rule on most keys: the first few say what, the counts say how often.
            Map<String, Long> byRule = verdict.violations().stream()
                    .collect(Collectors.groupingBy(Violation::rule, TreeMap::new, Collectors.counting()));
            out.append(indent).append("  and ").append(verdict.violations().size() - VIOLATIONS_LISTED)
                    .append(" more; by rule: ").append(byRule).append(nl);
        }
        // The keys shown first are those that broke the gravest rule: a second charge before a late answer.
        verdict.violations().stream().sorted(java.util.Comparator.comparingInt(v -> GRAVITY.indexOf(v.rule())))
                .mapToInt(Violation::key).distinct().limit(KEYS_SHOWN).forEach(key -> {
            out.append(nl).append(indent).append("history of key ").append(key).append(" (times in seconds since the run began):")
                    .append(nl);
            for (CallRecord call : history.calls()) {
                if (call.key == key) {
                    out.append(indent).append("  ").append(line(call)).append(nl);
                }
            }
            out.append(nl).append(Timeline.mermaid(history, key)).append(nl);
        });
    }

    static String line(CallRecord call) {
        return String.format(Locale.ROOT, "call %d caller %d %s %s %s%s: sent %s, %s%s%s%s -> %s", call.id, call.caller,
                call.child ? "child JVM call" : call.async ? "callAsync" : "call", call.policy.name().toLowerCase(Locale.ROOT),
                call.onStoreFailure == dev.idemlab.idempotency.StoreFailureMode.FAIL_OPEN ? "fail-open" : "fail-closed",
                call.reusesKey() ? " amount " + call.amount() + " (the key reused with another body)" : "",
                NemesisChecker.millis(call.sentAt()),
                call.actionStartedAt() == 0 ? "action never ran" : "action from " + NemesisChecker.millis(call.actionStartedAt()),
                call.fence() > 0 ? " fence " + call.fence() : "",
                call.charged() == null ? "" : " charged " + call.charged(),
                call.cancelledAt() == 0 ? "" : ", cancelled at " + NemesisChecker.millis(call.cancelledAt()),
                call.answered() ? call.answer() + " at " + NemesisChecker.millis(call.answeredAt()) : "no answer");
    }

    /** How many calls ended in {@code outcome}: for tests and summaries. */
    static long count(NemesisHistory history, Outcome outcome) {
        return history.calls().stream().filter(call -> call.outcome() == outcome).count();
    }
}
