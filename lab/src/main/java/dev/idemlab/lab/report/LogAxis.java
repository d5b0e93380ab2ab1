package dev.idemlab.lab.report;

import java.util.Collection;
import java.util.Objects;

/**
 * The range and labels of a logarithmic axis that shows every value drawn on it: it spans whole decades
 * (so both ends carry a label) from a power of ten below the smallest value to one at or above the largest,
 * and labels them with as many decimals as the smallest needs, so that no decade of 0.01 reads "0". A bar
 * chart starts its axis a whole decade below the smallest value's decade: bars rise from the axis floor, and
 * a bar whose value sat on the floor (a p50 of exactly 0.1 µs) had no height at all, one just above it (a
 * throughput of 1.1 million over a floor of a million) was a flat line. Markers may sit on the floor.
 *
 * @param min the floor, a power of ten
 * @param max the ceiling, a power of ten, at least ten times the floor
 */
public record LogAxis(double min, double max) {

    /** Validates the range: positive powers of ten, at least a decade apart. */
    public LogAxis {
        if (!(min > 0) || !(max >= min * 10)) {
            throw new IllegalArgumentException("a log axis needs 0 < min and max >= 10 x min, got " + min + " to " + max);
        }
    }

    /**
     * The axis for {@code values} (nulls, zeros and negatives are not drawn on a log axis and are left out).
     *
     * @param bars whether the values are bars, which need room below them; markers do not
     * @return the axis, or a 1-to-10 axis when nothing positive is drawn
     */
    public static LogAxis spanning(Collection<Double> values, boolean bars) {
        double low = Double.POSITIVE_INFINITY;
        double high = 0;
        for (Double v : values) {
            if (v != null && v > 0 && Double.isFinite(v)) {
                low = Math.min(low, v);
                high = Math.max(high, v);
            }
        }
        if (high == 0) {
            return new LogAxis(1, 10);
        }
        int floor = decade(low) - (bars ? 1 : 0);
        int ceiling = Math.max(floor + 1, decade(high) + (Math.pow(10, decade(high)) < high ? 1 : 0));
        return new LogAxis(Math.pow(10, floor), Math.pow(10, ceiling));
    }

    /** This axis widened to take in {@code other} as well. */
    public LogAxis union(LogAxis other) {
        Objects.requireNonNull(other, "other");
        return new LogAxis(Math.min(min, other.min), Math.max(max, other.max));
    }

    /** Whether {@code value} is drawn within the axis: above its floor and at most its ceiling. */
    public boolean covers(double value) {
        return value >= min && value <= max;
    }

    /** The labels' pattern: thousands grouped, and the decimals the floor's label needs (0.01: two). */
    public String decimalPattern() {
        int decimals = Math.max(0, -decade(min));
        return decimals == 0 ? "#,##0" : "#,##0." + "#".repeat(decimals);
    }

    /** The exponent of the largest power of ten at or below {@code value}, exact at the powers themselves. */
    static int decade(double value) {
        int exponent = (int) Math.floor(Math.log10(value));
        if (Math.pow(10, exponent + 1) <= value) {
            exponent++;
        } else if (Math.pow(10, exponent) > value) {
            exponent--;
        }
        return exponent;
    }
}
