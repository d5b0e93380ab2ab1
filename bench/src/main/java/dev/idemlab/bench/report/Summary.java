package dev.idemlab.bench.report;

import dev.idemlab.bench.StoreKind;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import java.util.TreeSet;

/**
 * Every comparison a run's results allow: for each store, question, thread count and baseline, the
 * coordinator's throughput beside the baseline's, and each published target judged on them.
 * Immutable and thread-safe.
 */
public final class Summary {

    private final JmhResults results;
    private final List<Comparison> comparisons;

    private Summary(JmhResults results, List<Comparison> comparisons) {
        this.results = results;
        this.comparisons = List.copyOf(comparisons);
    }

    /** The summary of {@code results}; a figure missing on either side leaves its comparison out. */
    public static Summary of(JmhResults results) {
        List<Comparison> comparisons = new ArrayList<>();
        for (Question question : Question.values()) {
            for (StoreKind store : question.perStore() ? List.of(StoreKind.values()) : nullStore()) {
                String param = store == null ? null : store.name();
                for (int threads : threadCounts(results, question)) {
                    OptionalDouble ours = results.throughput(question.benchmark(), question.ours(), param, threads);
                    for (String baseline : question.baselines()) {
                        OptionalDouble raw = results.throughput(question.benchmark(), baseline, param, threads);
                        if (ours.isPresent() && raw.isPresent()) {
                            comparisons.add(new Comparison(store, question, threads, baseline,
                                    ours.getAsDouble(), raw.getAsDouble(),
                                    results.bytesPerOp(question.benchmark(), question.ours(), param, threads),
                                    results.bytesPerOp(question.benchmark(), baseline, param, threads),
                                    results.sampledThroughput(question.benchmark(), question.ours(), param, threads)
                                            .orElse(Double.NaN),
                                    results.sampledThroughput(question.benchmark(), baseline, param, threads)
                                            .orElse(Double.NaN)));
                        }
                    }
                }
            }
        }
        return new Summary(results, comparisons);
    }

    public JmhResults results() {
        return results;
    }

    public List<Comparison> comparisons() {
        return comparisons;
    }

    /** The comparisons of one store ({@code null}: those without a store, the fingerprint). */
    public List<Comparison> comparisons(StoreKind store) {
        return comparisons.stream().filter(c -> c.store() == store).toList();
    }

    /** The stores this run measured, in {@link StoreKind} order. */
    public List<StoreKind> stores() {
        return comparisons.stream().map(Comparison::store).filter(s -> s != null).distinct().sorted().toList();
    }

    /** The comparisons {@code target} reads, one per thread count; empty if the run did not measure it. */
    public List<Comparison> judged(Target target) {
        return comparisons.stream().filter(target::reads).toList();
    }

    private static List<StoreKind> nullStore() {
        List<StoreKind> none = new ArrayList<>();
        none.add(null);
        return none;
    }

    private static TreeSet<Integer> threadCounts(JmhResults results, Question question) {
        TreeSet<Integer> counts = new TreeSet<>();
        results.records().stream().filter(r -> r.benchmark().equals(question.benchmark()))
                .forEach(r -> counts.add(r.threads()));
        return counts;
    }
}
