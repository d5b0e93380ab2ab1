package dev.idemlab.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * The results of one or more JMH JSON files ({@code -rf json}), with the JVM that produced them.
 * Immutable and thread-safe.
 */
public final class JmhResults {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final List<JmhRecord> records;
    private final String jvm;
    private final String settings;

    private JmhResults(List<JmhRecord> records, String jvm, String settings) {
        this.records = List.copyOf(records);
        this.jvm = jvm;
        this.settings = settings;
    }

    /**
     * Reads every file, in order.
     *
     * @throws UncheckedIOException if a file cannot be read or is not JMH JSON
     */
    public static JmhResults read(List<Path> files) {
        List<JmhRecord> records = new ArrayList<>();
        String jvm = "unknown";
        String settings = "unknown";
        for (Path file : files) {
            JsonNode root;
            try {
                root = MAPPER.readTree(file.toFile());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read JMH results " + file, e);
            }
            for (JsonNode result : root) {
                records.add(toRecord(result));
                jvm = result.path("vmName").asText() + " " + result.path("vmVersion").asText()
                        + " (JDK " + result.path("jdkVersion").asText() + ")";
                settings = settings(result);
            }
        }
        return new JmhResults(records, jvm, settings);
    }

    public List<JmhRecord> records() {
        return records;
    }

    /** The JVM that ran the benchmarks, as JMH recorded it. */
    public String jvm() {
        return jvm;
    }

    /** Warmup, measurement and forks of the last result, as JMH recorded them. */
    public String settings() {
        return settings;
    }

    /** The result of {@code benchmark.method} on {@code store} with {@code threads}, in {@code mode}. */
    public Optional<JmhRecord> find(String benchmark, String method, String store, int threads, String mode) {
        return records.stream()
                .filter(r -> r.is(benchmark, method, store, threads) && r.mode().equals(mode))
                .findFirst();
    }

    /**
     * Operations per second of all threads together: the Throughput result, or when the run measured
     * no throughput at all (a quick run in SampleTime only), {@code threads / mean time per operation}.
     * In a run that measured throughput, a missing result stays missing: never mixed with derived ones.
     */
    public OptionalDouble throughput(String benchmark, String method, String store, int threads) {
        Optional<JmhRecord> measured = find(benchmark, method, store, threads, JmhRecord.THROUGHPUT);
        if (measured.isPresent()) {
            return OptionalDouble.of(measured.get().score());
        }
        if (!throughputDerived()) {
            return OptionalDouble.empty();
        }
        return find(benchmark, method, store, threads, JmhRecord.SAMPLE_TIME)
                .map(r -> OptionalDouble.of(threads * 1e6 / r.score()))
                .orElse(OptionalDouble.empty());
    }

    /**
     * Operations per second derived from the SampleTime result ({@code threads / mean time per
     * operation}), as a cross-check of a run that measured throughput too: the two modes run minutes
     * apart, so a noisy machine shows in their disagreement. Empty when the run measured no throughput
     * (its throughput is this figure already) or has no SampleTime result.
     */
    public OptionalDouble sampledThroughput(String benchmark, String method, String store, int threads) {
        if (throughputDerived()) {
            return OptionalDouble.empty();
        }
        return find(benchmark, method, store, threads, JmhRecord.SAMPLE_TIME)
                .map(r -> OptionalDouble.of(threads * 1e6 / r.score()))
                .orElse(OptionalDouble.empty());
    }

    /** Bytes allocated per operation, from whichever mode was profiled with {@code -prof gc}; NaN if none was. */
    public double bytesPerOp(String benchmark, String method, String store, int threads) {
        return records.stream().filter(r -> r.is(benchmark, method, store, threads) && !Double.isNaN(r.bytesPerOp()))
                .mapToDouble(JmhRecord::bytesPerOp).findFirst().orElse(Double.NaN);
    }

    /** Whether the run measured no throughput, so that every throughput figure is derived from SampleTime. */
    public boolean throughputDerived() {
        return records.stream().noneMatch(r -> r.mode().equals(JmhRecord.THROUGHPUT));
    }

    /**
     * The results a run of these benchmarks should hold and does not (a fork that failed): every method
     * of every question, for each store, thread count and mode that the run did measure elsewhere.
     */
    public List<String> missing() {
        List<String> missing = new ArrayList<>();
        List<String> modes = records.stream().map(JmhRecord::mode).distinct().sorted().toList();
        for (Question q : Question.values()) {
            // Only the stores this benchmark ran on elsewhere in the run: the Redisson benchmark runs on redis only.
            List<String> stores = records.stream().filter(r -> r.benchmark().equals(q.benchmark()))
                    .map(JmhRecord::store).filter(Objects::nonNull).distinct().sorted().toList();
            List<Integer> threads = records.stream().filter(r -> r.benchmark().equals(q.benchmark()))
                    .map(JmhRecord::threads).distinct().sorted().toList();
            List<String> methods = new ArrayList<>(List.of(q.ours()));
            methods.addAll(q.baselines());
            for (String store : q.perStore() ? stores : Collections.<String>singletonList(null)) {
                for (int t : threads) {
                    for (String method : methods) {
                        for (String mode : modes) {
                            if (find(q.benchmark(), method, store, t, mode).isEmpty()) {
                                missing.add(q.benchmark() + "." + method + (store == null ? "" : " store=" + store)
                                        + " threads=" + t + " mode=" + mode);
                            }
                        }
                    }
                }
            }
        }
        return missing;
    }

    private static JmhRecord toRecord(JsonNode result) {
        String name = result.path("benchmark").asText();
        String[] parts = name.split("\\.");
        String benchmark = parts[parts.length - 2];
        String method = parts[parts.length - 1];
        String mode = result.path("mode").asText();
        JsonNode metric = result.path("primaryMetric");
        String unit = metric.path("scoreUnit").asText();
        double score = metric.path("score").asDouble();
        Map<String, Double> percentiles = new LinkedHashMap<>();
        if (mode.equals(JmhRecord.THROUGHPUT)) {
            score = Units.toOpsPerSecond(score, unit);
        } else {
            score = Units.toMicros(score, unit);
            Iterator<Map.Entry<String, JsonNode>> fields = metric.path("scorePercentiles").fields();
            while (fields.hasNext()) {
                Map.Entry<String, JsonNode> p = fields.next();
                percentiles.put(p.getKey(), Units.toMicros(p.getValue().asDouble(), unit));
            }
        }
        JsonNode store = result.path("params").path("store");
        double bytesPerOp = Double.NaN;
        Iterator<Map.Entry<String, JsonNode>> secondary = result.path("secondaryMetrics").fields();
        while (secondary.hasNext()) {
            Map.Entry<String, JsonNode> metric2 = secondary.next();
            if (metric2.getKey().endsWith("gc.alloc.rate.norm")) {
                bytesPerOp = metric2.getValue().path("score").asDouble();
            }
        }
        return new JmhRecord(benchmark, method, mode, result.path("threads").asInt(),
                store.isMissingNode() ? null : store.asText(), score, percentiles, bytesPerOp);
    }

    private static String settings(JsonNode result) {
        return "warmup " + result.path("warmupIterations").asInt() + " x " + result.path("warmupTime").asText()
                + ", measurement " + result.path("measurementIterations").asInt() + " x "
                + result.path("measurementTime").asText() + ", forks " + result.path("forks").asInt();
    }
}
