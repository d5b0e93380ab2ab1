package dev.idemlab.bench.report;

import dev.idemlab.bench.StoreKind;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Renders {@code README.md} and one chart per store from the JMH JSON files in a results folder.
 * {@code scripts/bench.sh} runs it after the benchmarks:
 * <pre>{@code
 * java -Djava.awt.headless=true -cp bench/target/benchmarks.jar dev.idemlab.bench.report.BenchReport \
 *     --results results/bench
 * }</pre>
 * It reads every {@code *.json} in the folder and {@code servers.txt}, the server descriptions the
 * benchmark forks appended there. {@code --only charts} redraws the charts from the committed JSON and
 * leaves the page alone, whose header names the commit that measured it.
 */
public final class BenchReport {

    private BenchReport() { }

    public static void main(String[] args) {
        Map<String, String> options = options(args);
        Path dir = Path.of(options.getOrDefault("--results", "results/bench"));
        Summary summary = Summary.of(JmhResults.read(jsonFiles(dir)));
        RunInfo run = new RunInfo(Runtime.getRuntime().availableProcessors(), servers(dir.resolve("servers.txt")));
        String only = options.getOrDefault("--only", "all");
        if (!only.equals("charts") && !only.equals("all")) {
            throw new IllegalArgumentException("--only must be charts or all, got '" + only + "'");
        }
        Map<StoreKind, String> charts = Charts.write(summary, dir);
        if (only.equals("charts")) {
            charts.values().forEach(chart -> System.out.println("wrote " + dir.resolve(chart)));
            return;
        }
        Path page = dir.resolve("README.md");
        write(page, MarkdownPage.render(summary, run, charts));
        System.out.println("wrote " + page);
        charts.values().forEach(chart -> System.out.println("wrote " + dir.resolve(chart)));
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("expected an option like --results, got '" + args[i] + "'");
            }
            options.put(args[i], args[i + 1]);
        }
        if (args.length % 2 != 0) {
            throw new IllegalArgumentException("option " + args[args.length - 1] + " has no value");
        }
        return options;
    }

    private static List<Path> jsonFiles(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> json = new ArrayList<>(files.filter(f -> f.getFileName().toString().endsWith(".json")).toList());
            json.sort(null);
            if (json.isEmpty()) {
                throw new IllegalStateException("no JMH JSON results in " + dir);
            }
            return json;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir, e);
        }
    }

    private static List<String> servers(Path file) {
        if (!Files.exists(file)) {
            return List.of();
        }
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8).stream()
                    .filter(line -> !line.isBlank())
                    .map(BenchReport::withoutPort)
                    .distinct().sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    /** Every fork's private server listens on its own ephemeral port; the page lists each server kind once. */
    private static String withoutPort(String line) {
        return line.replaceAll(":\\d+(?=,|$)", "");
    }

    private static void write(Path file, String text) {
        try {
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
