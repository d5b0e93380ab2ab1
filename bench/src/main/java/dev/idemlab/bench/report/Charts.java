package dev.idemlab.bench.report;

import dev.idemlab.bench.StoreKind;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import javax.imageio.ImageIO;

/**
 * Draws one PNG per store: throughput of the coordinator and of each raw baseline on top, latency
 * percentiles of the coordinator and the raw reserve below, both on log axes, since a raw map read and a
 * network round trip differ by orders of magnitude. Stateless.
 */
public final class Charts {

    private static final int WIDTH = 1000;
    private static final int HEIGHT = 420;
    private static final List<String> PERCENTILES = List.of("50.0", "99.0", "99.9");

    private Charts() { }

    /**
     * Writes {@code chart-<store>.png} into {@code dir} for every store measured.
     *
     * @return the file name written for each store
     */
    public static Map<StoreKind, String> write(Summary summary, Path dir) {
        Map<StoreKind, String> files = new LinkedHashMap<>();
        for (StoreKind store : summary.stores()) {
            String name = "chart-" + store.backendName() + ".png";
            BufferedImage top = BitmapEncoder.getBufferedImage(throughput(summary, store));
            BufferedImage bottom = BitmapEncoder.getBufferedImage(latency(summary, store));
            try {
                ImageIO.write(stack(top, bottom), "png", dir.resolve(name).toFile());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + dir.resolve(name), e);
            }
            files.put(store, name);
        }
        return files;
    }

    private static CategoryChart throughput(Summary summary, StoreKind store) {
        CategoryChart chart = chart(store.backendName() + ": throughput, all threads (ops/s, log scale)", "ops/s");
        List<Comparison> rows = summary.comparisons(store);
        List<String> categories = categories(rows);
        Map<String, List<Double>> series = new LinkedHashMap<>();
        series.put("coordinator", values(categories, rows, null));
        for (String baseline : baselines(rows)) {
            series.put("raw: " + Question.baselineLabel(baseline, store), values(categories, rows, baseline));
        }
        series.forEach((name, values) -> chart.addSeries(name, categories, values));
        series.values().forEach(values -> lowerAxisTo(chart, values));
        return chart;
    }

    private static CategoryChart latency(Summary summary, StoreKind store) {
        CategoryChart chart = chart(store.backendName() + ": latency percentiles (µs/op, log scale)", "µs/op");
        List<String> categories = categories(summary.comparisons(store));
        for (String method : List.of("coordinator", "rawReserve")) {
            for (String p : PERCENTILES) {
                List<Double> values = new ArrayList<>();
                for (String category : categories) {
                    values.add(percentile(summary, store, category, method, p));
                }
                String side = method.equals("coordinator") ? "coordinator" : "raw reserve";
                chart.addSeries(side + " p" + p.replace(".0", ""), categories, values);
                lowerAxisTo(chart, values);
            }
        }
        return chart;
    }

    private static CategoryChart chart(String title, String yTitle) {
        CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title)
                .yAxisTitle(yTitle).build();
        chart.getStyler().setYAxisLogarithmic(true);
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        chart.getStyler().setOverlapped(false);
        return chart;
    }

    /**
     * A log axis needs an explicit floor: XChart would start the bars at zero and refuse. The floor is
     * the power of ten at or below the smallest value; a missing value (null) draws no bar.
     */
    private static void lowerAxisTo(CategoryChart chart, List<Double> values) {
        double min = values.stream().filter(v -> v != null && v > 0).mapToDouble(Double::doubleValue)
                .min().orElse(1.0);
        double floor = Math.pow(10, Math.floor(Math.log10(min)));
        Double current = chart.getStyler().getYAxisMin();
        chart.getStyler().setYAxisMin(current == null ? floor : Math.min(current, floor));
    }

    private static Double percentile(Summary summary, StoreKind store, String category, String method, String p) {
        for (Question q : Question.values()) {
            for (Integer threads : List.of(1, 2, 4, 8, 16)) {
                if (category.equals(category(q, threads))) {
                    Optional<JmhRecord> r = summary.results().find(q.benchmark(), method, store.name(), threads,
                            JmhRecord.SAMPLE_TIME);
                    return r.map(rec -> rec.percentile(p)).filter(v -> !v.isNaN()).orElse(null);
                }
            }
        }
        return null;
    }

    private static List<String> categories(List<Comparison> rows) {
        return rows.stream().map(c -> category(c.question(), c.threads())).distinct().toList();
    }

    private static List<String> baselines(List<Comparison> rows) {
        return rows.stream().map(Comparison::baseline).distinct().toList();
    }

    /** One value per category: the coordinator's ({@code baseline == null}) or the baseline's throughput. */
    private static List<Double> values(List<String> categories, List<Comparison> rows, String baseline) {
        List<Double> values = new ArrayList<>();
        for (String category : categories) {
            Double value = null;
            for (Comparison c : rows) {
                if (category(c.question(), c.threads()).equals(category)
                        && (baseline == null || c.baseline().equals(baseline))) {
                    value = baseline == null ? c.oursOpsPerSecond() : c.rawOpsPerSecond();
                    break;
                }
            }
            values.add(value);
        }
        return values;
    }

    private static String category(Question question, int threads) {
        return question.title() + " x" + threads;
    }

    private static BufferedImage stack(BufferedImage top, BufferedImage bottom) {
        BufferedImage image = new BufferedImage(Math.max(top.getWidth(), bottom.getWidth()),
                top.getHeight() + bottom.getHeight(), BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, image.getWidth(), image.getHeight());
        g.drawImage(top, 0, 0, null);
        g.drawImage(bottom, 0, top.getHeight(), null);
        g.dispose();
        return image;
    }
}
