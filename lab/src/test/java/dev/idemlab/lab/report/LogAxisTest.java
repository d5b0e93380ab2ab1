package dev.idemlab.lab.report;

import org.junit.jupiter.api.Test;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;

import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 40, item 8: a log axis spans its data in whole decades, bars get a decade of room below them, and
 * no decade's label reads "0"; the rate curve, the lab's log chart, is rendered from fixed points and its
 * axis checked against every marker drawn.
 */
class LogAxisTest {

    @Test
    void barsGetADecadeBelowTheSmallestAndTheCeilingHoldsTheLargest() {
        LogAxis axis = LogAxis.spanning(Arrays.asList(0.1, 9.4, null, 0.0), true);
        assertThat(axis.min()).isEqualTo(0.01);
        assertThat(axis.max()).isEqualTo(10.0);
        assertThat(axis.decimalPattern()).isEqualTo("#,##0.##");

        LogAxis throughput = LogAxis.spanning(List.of(1.1e6, 2.5e8), true);
        assertThat(throughput.min()).isEqualTo(1e5);
        assertThat(throughput.max()).isEqualTo(1e9);
        assertThat(throughput.decimalPattern()).isEqualTo("#,##0");
    }

    @Test
    void markersMaySitOnTheFloorAndAPowerOfTenIsItsOwnCeiling() {
        LogAxis axis = LogAxis.spanning(List.of(0.01, 100.0), false);
        assertThat(axis).isEqualTo(new LogAxis(0.01, 100));
        assertThat(axis.covers(0.01)).isTrue();
        assertThat(axis.covers(100.0)).isTrue();
        assertThat(axis.covers(100.5)).isFalse();
        assertThat(LogAxis.spanning(List.of(5.0), false)).isEqualTo(new LogAxis(1, 10));
        assertThat(LogAxis.spanning(List.of(), true)).isEqualTo(new LogAxis(1, 10));
        assertThatThrownBy(() -> new LogAxis(0, 10)).hasMessageContaining("0 < min");
    }

    @Test
    void theRateCurvesAxisCoversEveryMarkerAndLabelsItsLowestDecade() {
        List<RateCurve.Point> points = List.of(
                new RateCurve.Point("memory", "", 500, 0.2, 500, 0.1, 0.004, 0.5, 0, true),
                new RateCurve.Point("memory", "", 8000, 0.2, 7900, 0.3, 0.8, 2, 0, true),
                new RateCurve.Point("redis", "", 500, 0.2, 500, 1, 3.2, 9, 0, true),
                new RateCurve.Point("redis", "", 8000, 0.2, 4100, 40, 1250, 1800, 0, false));
        XYChart chart = RateCurve.chart(points);
        double min = chart.getStyler().getYAxisMin();
        double max = chart.getStyler().getYAxisMax();
        assertThat(min).isEqualTo(0.01);
        assertThat(max).isEqualTo(10_000.0);
        int markers = 0;
        for (XYSeries series : chart.getSeriesMap().values()) {
            for (double y : series.getYData()) {
                assertThat(y).as(series.getName()).isBetween(min, max);
                markers++;
            }
        }
        assertThat(markers).isEqualTo(points.size());
        DecimalFormat labels = new DecimalFormat(chart.getStyler().getYAxisDecimalPattern(),
                DecimalFormatSymbols.getInstance(Locale.ROOT));
        for (double decade = min; decade <= max * 1.0001; decade *= 10) {
            assertThat(labels.format(decade)).isNotEqualTo("0");
        }
        assertThat(labels.format(0.01)).isEqualTo("0.01");
        assertThat(BitmapEncoder.getBufferedImage(chart).getWidth()).isPositive();
    }
}
