package dev.idemlab.bench.report;

import dev.idemlab.bench.StoreKind;
import dev.idemlab.lab.report.LogAxis;
import org.junit.jupiter.api.Test;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategorySeries;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 40, item 8: in the published {@code chart-memory.png} the raw first call's p50 bar (exactly 0.1 µs,
 * the axis floor) had no height, the coordinator's in-flight throughput (1.1 million over a floor of a
 * million) was a flat line, and the replay latency's 0.01 decade read "0". Rendered from that run's own JMH
 * figures (kept in the test's resources), every panel of both kinds (throughput, latency) now has a log axis
 * of whole decades with every bar at least a decade above its floor and at most its ceiling, and labels
 * that read their values.
 */
class ChartsTest {

    private static final Summary MEMORY = Summary.of(JmhResults.read(List.of(
            resource("charts/jmh-memory-threads-1.json"), resource("charts/jmh-memory-threads-2.json"))));

    @Test
    void everyThroughputAndLatencyPanelShowsEveryBarInWholeDecades() {
        List<CategoryChart> charts = new ArrayList<>();
        for (Question question : Charts.questions(MEMORY, StoreKind.MEMORY)) {
            charts.add(Charts.throughput(MEMORY, StoreKind.MEMORY, question));
            charts.add(Charts.latency(MEMORY, StoreKind.MEMORY, question));
        }
        assertThat(charts).hasSizeGreaterThanOrEqualTo(6);
        int bars = 0;
        for (CategoryChart chart : charts) {
            bars += assertShowsEveryBar(chart);
            assertThat(BitmapEncoder.getBufferedImage(chart).getHeight()).isPositive();
        }
        assertThat(bars).isGreaterThan(30);
    }

    /** The bars that broke: a value on a decade, one just above it. */
    @Test
    void aBarOnADecadeAndOneJustAboveItBothRiseADecadeOrMore() {
        CategoryChart latency = Charts.latency(MEMORY, StoreKind.MEMORY, Question.FIRST_CALL);
        List<Double> baselineP50 = values(latency, "baseline, raw: putIfAbsent then replace p50");
        assertThat(baselineP50).contains(0.1);
        assertThat(latency.getStyler().getYAxisMin()).isEqualTo(0.01);

        CategoryChart conflict = Charts.throughput(MEMORY, StoreKind.MEMORY, Question.IN_FLIGHT);
        double coordinator = values(conflict, "coordinator").get(0);
        assertThat(coordinator).isBetween(1e6, 2e6);
        assertThat(conflict.getStyler().getYAxisMin()).isEqualTo(1e5);
    }

    @Test
    void aDecadeBelowOneIsLabelledWithItsDecimals() {
        CategoryChart replay = Charts.latency(MEMORY, StoreKind.MEMORY, Question.REPLAY);
        assertThat(replay.getStyler().getYAxisMin()).isEqualTo(0.001);
        assertThat(label(replay.getStyler().getYAxisDecimalPattern(), 0.001)).isEqualTo("0.001");
        assertThat(label(Charts.throughput(MEMORY, StoreKind.MEMORY, Question.REPLAY).getStyler()
                .getYAxisDecimalPattern(), 1e8)).isEqualTo("100,000,000");
    }

    /** Checks the axis of one panel against the bars drawn on it; returns how many bars it checked. */
    private static int assertShowsEveryBar(CategoryChart chart) {
        double min = chart.getStyler().getYAxisMin();
        double max = chart.getStyler().getYAxisMax();
        String title = chart.getTitle();
        assertThat(chart.getStyler().isYAxisLogarithmic()).as(title).isTrue();
        new LogAxis(min, max);
        assertThat(Math.log10(min)).as(title + ": floor a power of ten").isEqualTo(Math.rint(Math.log10(min)));
        assertThat(Math.log10(max)).as(title + ": ceiling a power of ten").isEqualTo(Math.rint(Math.log10(max)));
        for (double decade = min; decade <= max * 1.0001; decade *= 10) {
            String label = label(chart.getStyler().getYAxisDecimalPattern(), decade);
            assertThat(label).as(title + ": the label of " + decade).isNotEqualTo("0");
            assertThat(Double.parseDouble(label.replace(",", ""))).as(title).isCloseTo(decade,
                    org.assertj.core.data.Percentage.withPercentage(0.01));
        }
        int bars = 0;
        for (CategorySeries series : chart.getSeriesMap().values()) {
            for (Number y : series.getYData()) {
                if (y != null) {
                    assertThat(y.doubleValue()).as(title + ", " + series.getName()).isPositive()
                            .isGreaterThanOrEqualTo(10 * min).isLessThanOrEqualTo(max);
                    bars++;
                }
            }
        }
        return bars;
    }

    private static List<Double> values(CategoryChart chart, String series) {
        List<Double> values = new ArrayList<>();
        for (Number y : Objects.requireNonNull(chart.getSeriesMap().get(series), series).getYData()) {
            values.add(y == null ? null : y.doubleValue());
        }
        return values;
    }

    private static String label(String pattern, double value) {
        return new DecimalFormat(pattern, DecimalFormatSymbols.getInstance(Locale.ROOT)).format(value);
    }

    private static Path resource(String name) {
        try {
            return Path.of(Objects.requireNonNull(ChartsTest.class.getResource("/" + name), name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
