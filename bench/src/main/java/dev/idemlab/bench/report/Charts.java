package dev.idemlab.bench.report;

import dev.idemlab.bench.StoreKind;
import dev.idemlab.lab.report.LogAxis;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.CategoryStyler;
import org.knowm.xchart.style.Styler;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import javax.imageio.ImageIO;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Draws one PNG per store: a row of two panels per question (first call, replay, ...), throughput
 * on the left and latency on the right, each with the thread counts as its few categories, so that no
 * label overprints another at the committed size. Every bar beside the coordinator's names its raw
 * baseline in the legend. Both axes are logarithmic with their decades labelled in plain numbers,
 * since a raw map read and a network round trip differ by orders of magnitude; each spans its bars in
 * whole decades ({@link LogAxis}), so that every bar has a height and no label reads 0. Stateless.
 */
public final class Charts {

    private static final int PANEL_WIDTH = 560;
    private static final int PANEL_HEIGHT = 330;
    private static final List<String> PERCENTILES = List.of("50.0", "99.0");

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
            List<BufferedImage[]> rows = new ArrayList<>();
            for (Question question : questions(summary, store)) {
                rows.add(new BufferedImage[] {
                    BitmapEncoder.getBufferedImage(throughput(summary, store, question)),
                    BitmapEncoder.getBufferedImage(latency(summary, store, question))});
            }
            try {
                ImageIO.write(grid(rows), "png", dir.resolve(name).toFile());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + dir.resolve(name), e);
            }
            files.put(store, name);
        }
        return files;
    }

    /** The questions measured on {@code store}, in {@link Question} order. */
    static List<Question> questions(Summary summary, StoreKind store) {
        return summary.comparisons(store).stream().map(Comparison::question).distinct().sorted().toList();
    }

    /** Throughput of the coordinator and of each baseline of one question, per thread count. */
    static CategoryChart throughput(Summary summary, StoreKind store, Question question) {
        List<Comparison> rows = summary.comparisons(store).stream().filter(c -> c.question() == question).toList();
        List<String> categories = threadLabels(rows.stream().map(Comparison::threads).distinct().sorted().toList());
        CategoryChart chart = chart(store.backendName() + " " + question.title() + ": throughput (ops/s, log)",
                "ops/s");
        Map<String, List<Double>> series = new LinkedHashMap<>();
        series.put("coordinator", values(rows, null));
        for (String baseline : question.baselines()) {
            List<Double> values = values(rows, baseline);
            if (values.stream().anyMatch(v -> v != null)) {
                series.put(legend(baseline, store), values);
            }
        }
        series.forEach((name, values) -> chart.addSeries(name, categories, values));
        span(chart, series.values().stream().flatMap(List::stream).toList());
        return chart;
    }

    /** A baseline as the legend names it: the raw store's operation, or the library idiom it is. */
    static String legend(String baseline, StoreKind store) {
        String label = Question.baselineLabel(baseline, store);
        return baseline.startsWith("redisson") ? "baseline, " + label : "baseline, raw: " + label;
    }

    /**
     * Latency percentiles of the coordinator and of the baseline its target reads (the plain writes of
     * a first call, the plain read of a replay), per thread count.
     */
    static CategoryChart latency(Summary summary, StoreKind store, Question question) {
        List<Integer> threads = summary.comparisons(store).stream().filter(c -> c.question() == question)
                .map(Comparison::threads).distinct().sorted().toList();
        CategoryChart chart = chart(store.backendName() + " " + question.title() + ": latency (µs/op, log)",
                "µs/op");
        String baseline = question.baselines().get(question.baselines().size() - 1);
        List<Double> drawn = new ArrayList<>();
        for (String method : List.of(question.ours(), baseline)) {
            String side = method.equals(question.ours()) ? "coordinator" : legend(method, store);
            for (String p : PERCENTILES) {
                List<Double> values = new ArrayList<>();
                for (int t : threads) {
                    Optional<JmhRecord> r = summary.results().find(question.benchmark(), method, store.name(), t,
                            JmhRecord.SAMPLE_TIME);
                    values.add(r.map(rec -> rec.percentile(p)).filter(v -> !v.isNaN()).orElse(null));
                }
                if (values.stream().anyMatch(v -> v != null)) {
                    chart.addSeries(side + " p" + p.replace(".0", ""), threadLabels(threads), values);
                    drawn.addAll(values);
                }
            }
        }
        span(chart, drawn);
        return chart;
    }

    private static CategoryChart chart(String title, String yTitle) {
        CategoryChart chart = new CategoryChartBuilder().width(PANEL_WIDTH).height(PANEL_HEIGHT).title(title)
                .yAxisTitle(yTitle).build();
        CategoryStyler styler = chart.getStyler();
        styler.setYAxisLogarithmic(true);
        styler.setYAxisLogarithmicDecadeOnly(true);
        styler.setLegendPosition(Styler.LegendPosition.OutsideS);
        styler.setLegendLayout(Styler.LegendLayout.Vertical);
        styler.setOverlapped(false);
        styler.setChartTitleFont(styler.getChartTitleFont().deriveFont(13f));
        styler.setLegendFont(styler.getLegendFont().deriveFont(11f));
        return chart;
    }

    /**
     * Sets the log axis to whole decades that hold every bar with room below it ({@link LogAxis}), labelled
     * with the decimals its floor needs. A missing value (null) draws no bar.
     */
    static LogAxis span(CategoryChart chart, List<Double> values) {
        LogAxis axis = LogAxis.spanning(values, true);
        chart.getStyler().setYAxisMin(axis.min());
        chart.getStyler().setYAxisMax(axis.max());
        chart.getStyler().setYAxisDecimalPattern(axis.decimalPattern());
        return axis;
    }

    /** One value per thread count: the coordinator's ({@code baseline == null}) or the baseline's throughput. */
    private static List<Double> values(List<Comparison> rows, String baseline) {
        List<Double> values = new ArrayList<>();
        for (int t : rows.stream().map(Comparison::threads).distinct().sorted().toList()) {
            Double value = null;
            for (Comparison c : rows) {
                if (c.threads() == t && (baseline == null || c.baseline().equals(baseline))) {
                    value = baseline == null ? c.oursOpsPerSecond() : c.rawOpsPerSecond();
                    break;
                }
            }
            values.add(value);
        }
        return values;
    }

    private static List<String> threadLabels(List<Integer> threads) {
        return threads.stream().map(t -> t + (t == 1 ? " thread" : " threads")).toList();
    }

    /** The panels in rows of two, on white. */
    private static BufferedImage grid(List<BufferedImage[]> rows) {
        int width = 0;
        int height = 0;
        for (BufferedImage[] row : rows) {
            width = Math.max(width, row[0].getWidth() + row[1].getWidth());
            height += Math.max(row[0].getHeight(), row[1].getHeight());
        }
        BufferedImage image = new BufferedImage(Math.max(width, 1), Math.max(height, 1), BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, image.getWidth(), image.getHeight());
        int y = 0;
        for (BufferedImage[] row : rows) {
            g.drawImage(row[0], 0, y, null);
            g.drawImage(row[1], row[0].getWidth(), y, null);
            y += Math.max(row[0].getHeight(), row[1].getHeight());
        }
        g.dispose();
        return image;
    }
}
