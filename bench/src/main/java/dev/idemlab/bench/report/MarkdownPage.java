package dev.idemlab.bench.report;

import dev.idemlab.bench.StoreKind;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Renders a {@link Summary} as the Markdown page {@code results/bench/README.md}: where the figures
 * came from, the targets met or missed, and per store the coordinator beside each raw baseline.
 * Stateless.
 */
public final class MarkdownPage {

    private static final List<String> PERCENTILES = List.of("50.0", "99.0", "99.9");

    private MarkdownPage() { }

    /**
     * The page.
     *
     * @param charts the chart file of each store, relative to the page
     */
    public static String render(Summary summary, RunInfo run, Map<StoreKind, String> charts) {
        StringBuilder page = new StringBuilder();
        header(page, summary, run);
        targets(page, summary, run.cores());
        for (StoreKind store : summary.stores()) {
            page.append("## ").append(store.backendName()).append("\n\n");
            if (charts.containsKey(store)) {
                page.append("![").append(store.backendName()).append(": throughput and latency](")
                        .append(charts.get(store)).append(")\n\n");
            }
            throughputTable(page, summary.comparisons(store));
            latencyTable(page, summary.results(), store);
        }
        fingerprint(page, summary);
        proxy(page, summary);
        missing(page, summary.results().missing());
        howToRead(page);
        return page.toString();
    }

    private static void header(StringBuilder page, Summary summary, RunInfo run) {
        page.append("# Reservation path: the coordinator beside the raw store\n\n")
                .append("Every coordinator figure stands beside its raw baseline from the same JMH run: same JVM, ")
                .append("same kind of server provisioned the same way, same client library, same thread count. ")
                .append("The ratios are the result; absolute figures depend on a machine shared with other work.\n\n")
                .append("* JVM: ").append(summary.results().jvm()).append("\n")
                .append("* JMH: ").append(summary.results().settings()).append("\n");
        page.append("* servers, as each reported itself:").append(run.servers().isEmpty() ? " not recorded\n" : "\n");
        run.servers().forEach(s -> page.append("  * ").append(s).append("\n"));
        if (summary.results().throughputDerived()) {
            page.append("\nThis was a quick run in SampleTime mode only: each throughput is derived as ")
                    .append("threads / mean time per operation, and the timer's own cost is in both sides.\n");
        }
        page.append("\n");
    }

    private static void targets(StringBuilder page, Summary summary, int cores) {
        page.append("## Targets\n\nReported, never asserted: a shared machine's noise must not fail a build. ")
                .append("The figure is from the Throughput run; the cross-check is the same figure from the ")
                .append("SampleTime means, measured minutes apart. A target is met only when both meet it, so ")
                .append("that a few quiet or loaded minutes of a shared machine on one side never read as met. ")
                .append("Targets are judged at 1 thread and at up to as many threads as the machine has cores (")
                .append(cores).append(" here); a figure at more threads than cores also counts the time each ")
                .append("thread waited for a core, and is reported, not judged.\n\n")
                .append("| target | threads | figure | SampleTime cross-check | verdict |\n|---|---:|---:|---:|---|\n");
        for (Target target : Target.PUBLISHED) {
            List<Comparison> judged = summary.judged(target);
            if (judged.isEmpty()) {
                page.append("| ").append(target.describe()).append(" | | | | not measured |\n");
            }
            for (Comparison c : judged) {
                String figure = figure(target, target.value(c));
                String check = Double.isNaN(target.crossCheck(c)) ? "" : figure(target, target.crossCheck(c));
                String verdict = Double.isNaN(target.value(c)) ? "not measured"
                        : !Target.judgesAt(c.threads(), cores) ? "reported, not judged (more threads than cores)"
                        : target.metBy(c) ? "**met**" : "**missed**";
                page.append("| ").append(target.describe()).append(" | ").append(c.threads()).append(" | ")
                        .append(figure).append(" | ").append(check).append(" | ").append(verdict).append(" |\n");
            }
        }
        page.append("\n");
    }

    private static String figure(Target target, double value) {
        return switch (target.kind()) {
            case RATIO_AT_LEAST -> fmt("%.3fx", value);
            case OVERHEAD_BELOW_MICROS -> fmt("%.3f µs", value);
            case ALLOCATION_AT_MOST_BYTES -> fmt("%.0f B", value);
        };
    }

    private static void throughputTable(StringBuilder page, List<Comparison> comparisons) {
        page.append("| question | threads | coordinator ops/s | baseline | baseline ops/s | ours / raw | ")
                .append("coordinator µs/op | raw µs/op | overhead µs/op | coordinator B/op | raw B/op |\n")
                .append("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Comparison c : comparisons) {
            page.append("| ").append(c.question().title()).append(" | ").append(c.threads())
                    .append(" | ").append(fmt("%,.0f", c.oursOpsPerSecond()))
                    .append(" | ").append(c.baselineLabel())
                    .append(" | ").append(fmt("%,.0f", c.rawOpsPerSecond()))
                    .append(" | ").append(fmt("%.3f", c.ratio()))
                    .append(" | ").append(fmt("%.3f", c.oursMicrosPerOp()))
                    .append(" | ").append(fmt("%.3f", c.rawMicrosPerOp()))
                    .append(" | ").append(fmt("%.3f", c.overheadMicros()))
                    .append(" | ").append(fmt("%,.0f", c.oursBytesPerOp()))
                    .append(" | ").append(fmt("%,.0f", c.rawBytesPerOp())).append(" |\n");
        }
        page.append("\n");
    }

    private static void latencyTable(StringBuilder page, JmhResults results, StoreKind store) {
        page.append("Latency (SampleTime, µs per operation):\n\n")
                .append("| question | threads | side | p50 | p99 | p99.9 |\n|---|---:|---|---:|---:|---:|\n");
        for (Question question : Question.values()) {
            if (!question.perStore()) {
                continue;
            }
            for (JmhRecord r : results.records()) {
                // One benchmark class may answer two questions (the Redisson one): each row under its own.
                boolean answers = r.method().equals(question.ours()) || question.baselines().contains(r.method());
                if (answers && r.benchmark().equals(question.benchmark()) && store.name().equals(r.store())
                        && r.mode().equals(JmhRecord.SAMPLE_TIME)) {
                    String side = r.method().equals(question.ours())
                            ? "coordinator" : Question.baselineLabel(r.method(), store);
                    latencyRow(page, question.title(), r, side);
                }
            }
        }
        page.append("\n");
    }

    private static void latencyRow(StringBuilder page, String question, JmhRecord r, String side) {
        page.append("| ").append(question).append(" | ").append(r.threads()).append(" | ").append(side);
        for (String p : PERCENTILES) {
            page.append(" | ").append(fmt("%.3f", r.percentile(p)));
        }
        page.append(" |\n");
    }

    private static void fingerprint(StringBuilder page, Summary summary) {
        List<Comparison> rows = summary.comparisons(null).stream()
                .filter(c -> c.question() == Question.FINGERPRINT).toList();
        if (rows.isEmpty()) {
            return;
        }
        page.append("## fingerprint\n\nFingerprint.ofFields of an order (id, amount, currency, customer, ")
                .append("three line items): canonical JSON and SHA-256, beside a plain Jackson write and the same hash.\n\n");
        throughputTable(page, rows);
        page.append("| threads | side | p50 | p99 | p99.9 |\n|---:|---|---:|---:|---:|\n");
        for (Comparison c : rows) {
            for (String method : List.of(Question.FINGERPRINT.ours(), c.baseline())) {
                Optional<JmhRecord> r = summary.results().find(Question.FINGERPRINT.benchmark(), method, null,
                        c.threads(), JmhRecord.SAMPLE_TIME);
                r.ifPresent(rec -> page.append("| ").append(c.threads()).append(" | ").append(method)
                        .append(" | ").append(fmt("%.3f", rec.percentile("50.0")))
                        .append(" | ").append(fmt("%.3f", rec.percentile("99.0")))
                        .append(" | ").append(fmt("%.3f", rec.percentile("99.9"))).append(" |\n"));
            }
        }
        page.append("\n");
    }

    /**
     * The {@code @Idempotent} proxy beside the same call made on the coordinator ({@code ProxyBenchmark}, on
     * memory): "ours / raw" is the proxy's share of a direct call's throughput.
     */
    private static void proxy(StringBuilder page, Summary summary) {
        List<Comparison> rows = summary.comparisons(null).stream().filter(c -> c.question().proxy()).toList();
        if (rows.isEmpty()) {
            return;
        }
        page.append("## proxy\n\nA charge made through `Idempotency.proxy` (an `@Idempotent` interface method) ")
                .append("beside the same call made directly on the coordinator, on the memory store: both build the ")
                .append("fingerprint of the order's id and amount, the call and the JSON codec; the proxy adds the ")
                .append("dynamic proxy, the method's plan, the arguments' copy and the reflective call. Here ")
                .append("\"coordinator\" is the proxy and \"ours / raw\" its share of the direct call's throughput.\n\n");
        throughputTable(page, rows);
        page.append("| question | threads | side | p50 | p99 | p99.9 |\n|---|---:|---|---:|---:|---:|\n");
        for (Comparison c : rows) {
            for (String method : List.of(c.question().ours(), c.baseline())) {
                summary.results().find(c.question().benchmark(), method, null, c.threads(), JmhRecord.SAMPLE_TIME)
                        .ifPresent(r -> latencyRow(page, c.question().title(), r,
                                method.equals(c.question().ours()) ? "proxy" : "direct"));
            }
        }
        page.append("\n");
    }

    private static void missing(StringBuilder page, List<String> missing) {
        if (missing.isEmpty()) {
            return;
        }
        page.append("## Missing from this run\n\nThese forks failed (see the JMH output), so their figures ")
                .append("and every comparison that needs them are left out:\n\n");
        missing.forEach(m -> page.append("* ").append(m).append("\n"));
        page.append("\n");
    }

    private static void howToRead(StringBuilder page) {
        page.append("## How to read this\n\n")
                .append("* **ours / raw** is the coordinator's throughput divided by the baseline's, both with all ")
                .append("threads together. A first call makes two store round trips (reserve, complete): the ")
                .append("targets read it against the two raw writes a first call needs without the library, ")
                .append("each its own round trip too, so 1.0 would mean the library costs nothing on top of the ")
                .append("store. Against the one-operation reserve baseline about 0.5 is the most a network store ")
                .append("can show.\n")
                .append("* **µs/op** is the average time per operation of one thread: threads / throughput. ")
                .append("**overhead** is the coordinator's minus the baseline's; with more threads than cores it ")
                .append("includes time spent waiting for a core.\n")
                .append("* **in-flight conflict**: four threads hit one key whose reservation is held and never ")
                .append("completed; the coordinator refuses each call (policy RAISE, HTTP 409).\n")
                .append("* **B/op** is JMH's `-prof gc` allocation per operation (gc.alloc.rate.norm), from the ")
                .append("same run; n/a where the run was not profiled.\n")
                .append("* **beside Redisson**: the idiom users write instead, a Redisson RLock per key (lock, GET ")
                .append("the stored result, run and SET it with the ttl, unlock), on the same Redis in the same run; ")
                .append("ours / raw above 1 is the coordinator's lead.\n")
                .append("* Each benchmark fork provisions its own server through the lab's infra; set ")
                .append("IDEMLAB_REDIS_URL / IDEMLAB_PG_URL to run every fork against one server.\n");
    }

    private static String fmt(String format, double value) {
        return Double.isNaN(value) ? "n/a" : String.format(Locale.ROOT, format, value);
    }
}
