package dev.idemlab.lab.report;

import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.lab.load.LoadComparison;
import dev.idemlab.lab.load.LoadRun;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.ToDoubleFunction;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * The load's charts as PNG files, drawn headless: throughput and p99 latency per store and policy,
 * and duplicate charges per policy. Stateless and thread-safe.
 */
public final class LoadCharts {

    static {
        // Charts are drawn on servers and in CI: never reach for a display.
        System.setProperty("java.awt.headless", "true");
    }

    private static final int WIDTH = 900;
    private static final int HEIGHT = 520;

    private LoadCharts() { }

    /**
     * Writes {@code throughput.png}, {@code p99.png} and {@code duplicates.png} into {@code dir}.
     *
     * @return the files written
     * @throws IOException if a file cannot be written
     */
    public static List<Path> write(LoadComparison comparison, Path dir) throws IOException {
        Files.createDirectories(dir);
        List<Path> written = new ArrayList<>();
        written.add(save(byStore(comparison, "Throughput per store and policy", "requests per second",
                LoadRun::throughput), dir.resolve("throughput.png")));
        written.add(save(byStore(comparison, "p99 latency per store and policy", "p99 latency (ms)",
                run -> run.latency().p99()), dir.resolve("p99.png")));
        written.add(save(duplicatesByPolicy(comparison), dir.resolve("duplicates.png")));
        return written;
    }

    /** Stores along the axis, one bar per policy. */
    private static CategoryChart byStore(LoadComparison comparison, String title, String yTitle,
                                         ToDoubleFunction<LoadRun> value) {
        CategoryChart chart = chart(title, "store", yTitle);
        List<String> stores = comparison.stores();
        for (LabPolicy policy : LabPolicy.values()) {
            List<Double> values = new ArrayList<>();
            boolean any = false;
            for (String store : stores) {
                Optional<LoadRun> run = find(comparison, store, policy);
                any |= run.isPresent();
                values.add(run.map(r -> round(value.applyAsDouble(r))).orElse(0.0));
            }
            if (any) {
                chart.addSeries(policy.name().toLowerCase(Locale.ROOT), stores, values);
            }
        }
        return chart;
    }

    /** Policies along the axis, one bar per store. */
    private static CategoryChart duplicatesByPolicy(LoadComparison comparison) {
        CategoryChart chart = chart("Duplicate charges per policy (ledger: charges beyond one per key)",
                "policy", "duplicate charges");
        List<LabPolicy> policies = comparison.runs().stream().map(LoadRun::policy).distinct().toList();
        List<String> names = policies.stream().map(p -> p.name().toLowerCase(Locale.ROOT)).toList();
        for (String store : comparison.stores()) {
            List<Double> values = policies.stream()
                    .map(policy -> find(comparison, store, policy).map(run -> (double) run.check().duplicateCharges())
                            .orElse(0.0))
                    .toList();
            chart.addSeries(store, names, values);
        }
        return chart;
    }

    private static CategoryChart chart(String title, String xTitle, String yTitle) {
        CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT)
                .title(title).xAxisTitle(xTitle).yAxisTitle(yTitle).build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        chart.getStyler().setLabelsVisible(true);
        chart.getStyler().setYAxisMin(0.0);
        chart.getStyler().setDecimalPattern("#,##0.#");
        return chart;
    }

    /** Bar labels show what a reader needs: whole numbers, or one decimal below 100. */
    private static double round(double value) {
        return value >= 100 ? Math.rint(value) : Math.rint(value * 10) / 10;
    }

    private static Optional<LoadRun> find(LoadComparison comparison, String store, LabPolicy policy) {
        return comparison.runs().stream()
                .filter(run -> run.server().store().equals(store) && run.policy() == policy).findFirst();
    }

    private static Path save(CategoryChart chart, Path file) throws IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            BitmapEncoder.saveBitmap(chart, out, BitmapEncoder.BitmapFormat.PNG);
        }
        return file;
    }
}
