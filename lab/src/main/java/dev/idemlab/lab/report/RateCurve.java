package dev.idemlab.lab.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The throughput-latency curve of open-loop load runs: for each store, the offered rate, the
 * throughput it reached and its latency percentiles from each request's intended start, one point
 * per {@code load.json} of a {@code lab load --rate} run. Writes {@code rate-curve.md} and
 * {@code rate-curve.png}; run by {@code scripts/load.sh}:
 *
 * <pre>{@code java -cp lab/target/lab.jar dev.idemlab.lab.report.RateCurve OUT_DIR load-redis-1000.json ...}</pre>
 *
 * <p>The knee is the last rate a store kept up with: throughput within 5% of the offered rate (its
 * duplicates included) and a
 * p99 under ten times the p99 of its lowest rate. Stateless.
 */
public final class RateCurve {

    static {
        System.setProperty("java.awt.headless", "true");
    }

    /** One run: a store at one offered rate. */
    record Point(String store, String durability, double offered, double retryRate, double throughput, double p50,
                 double p99, double p999, long duplicates, boolean passed) {

        /** Requests per second the rate asks for, duplicates included: what throughput is measured against. */
        double expected() {
            return offered * (1 + retryRate);
        }
    }

    private RateCurve() { }

    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            System.err.println("usage: RateCurve OUT_DIR LOAD_JSON...");
            System.exit(2);
        }
        Path out = Path.of(args[0]);
        List<Point> points = new ArrayList<>();
        ObjectMapper json = new ObjectMapper();
        for (int i = 1; i < args.length; i++) {
            JsonNode root = json.readTree(Files.readString(Path.of(args[i]), StandardCharsets.UTF_8));
            double offered = root.path("settings").path("ratePerSecond").asDouble();
            double retryRate = root.path("settings").path("retryRate").asDouble();
            for (JsonNode run : root.path("runs")) {
                JsonNode latency = run.path("latencyMs");
                String describe = run.path("store").path("describe").asText();
                points.add(new Point(run.path("store").path("name").asText(), describe, offered, retryRate,
                        run.path("throughputPerSecond").asDouble(), latency.path("p50").asDouble(),
                        latency.path("p99").asDouble(), latency.path("p99.9").asDouble(),
                        run.path("duplicateCharges").asLong(), run.path("passed").asBoolean()));
            }
        }
        Files.createDirectories(out);
        Files.writeString(out.resolve("rate-curve.md"), markdown(points), StandardCharsets.UTF_8);
        save(chart(points), out.resolve("rate-curve.png"));
        System.out.println("wrote " + out.resolve("rate-curve.md") + " and " + out.resolve("rate-curve.png"));
    }

    static String markdown(List<Point> points) {
        StringBuilder md = new StringBuilder();
        for (Map.Entry<String, List<Point>> store : byStore(points).entrySet()) {
            List<Point> runs = store.getValue();
            md.append("\n### ").append(store.getKey()).append("\n\n* server: ").append(runs.get(0).durability())
                    .append("\n* knee: ").append(knee(runs)).append("\n\n")
                    .append("| offered/s | with retries/s | throughput/s | p50 ms | p99 ms | p99.9 ms | duplicate charges "
                            + "| ledger |\n")
                    .append("|---:|---:|---:|---:|---:|---:|---:|---|\n");
            for (Point p : runs) {
                md.append(String.format(Locale.ROOT, "| %,.0f | %,.0f | %,.0f | %.2f | %.2f | %.2f | %d | %s |%n",
                        p.offered(), p.expected(), p.throughput(), p.p50(), p.p99(), p.p999(), p.duplicates(), p.passed() ? "ok" : "FAILED"));
            }
        }
        return md.toString();
    }

    /** The last rate the store kept up with, or a note that it kept up with none. */
    static String knee(List<Point> runs) {
        double baseP99 = runs.get(0).p99();
        Point last = null;
        for (Point p : runs) {
            boolean keptUp = p.throughput() >= 0.95 * p.expected() && p.p99() <= 10 * Math.max(baseP99, 1);
            if (!keptUp) {
                break;
            }
            last = p;
        }
        if (last == null) {
            return "below the lowest rate tried";
        }
        return last == runs.get(runs.size() - 1)
                ? String.format(Locale.ROOT, "above %,.0f/s, the highest rate tried", last.offered())
                : String.format(Locale.ROOT, "between %,.0f/s (kept up) and the next rate tried", last.offered());
    }

    private static Map<String, List<Point>> byStore(List<Point> points) {
        Map<String, List<Point>> stores = new LinkedHashMap<>();
        for (Point p : points) {
            stores.computeIfAbsent(p.store(), s -> new ArrayList<>()).add(p);
        }
        stores.values().forEach(runs -> runs.sort((a, b) -> Double.compare(a.offered(), b.offered())));
        return stores;
    }

    static XYChart chart(List<Point> points) {
        XYChart chart = new XYChartBuilder().width(900).height(520)
                .title("Open loop: p99 latency from intended start against throughput reached")
                .xAxisTitle("throughput reached (requests per second)").yAxisTitle("p99 latency (ms, log)").build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        chart.getStyler().setYAxisLogarithmic(true);
        chart.getStyler().setYAxisLogarithmicDecadeOnly(true);
        chart.getStyler().setXAxisDecimalPattern("#,##0");
        // Whole decades from the lowest p99 to the highest, so that both ends of the log axis are labelled,
        // and as many decimals as the lowest decade needs (0.01 read "0" with one).
        LogAxis axis = LogAxis.spanning(points.stream().map(p -> Math.max(0.01, p.p99())).toList(), false);
        chart.getStyler().setYAxisMin(axis.min());
        chart.getStyler().setYAxisMax(axis.max());
        chart.getStyler().setYAxisDecimalPattern(axis.decimalPattern());
        for (Map.Entry<String, List<Point>> store : byStore(points).entrySet()) {
            List<Double> x = store.getValue().stream().map(Point::throughput).toList();
            List<Double> y = store.getValue().stream().map(p -> Math.max(0.01, p.p99())).toList();
            chart.addSeries(store.getKey(), x, y).setMarker(SeriesMarkers.CIRCLE);
        }
        return chart;
    }

    private static void save(XYChart chart, Path file) throws IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            BitmapEncoder.saveBitmap(chart, out, BitmapEncoder.BitmapFormat.PNG);
        }
    }
}
