package dev.idemlab.bench.report;

/** Converts JMH's score units to the two the summary page uses: operations per second and µs per operation. */
final class Units {

    private Units() { }

    /** Seconds in one of JMH's time units: {@code s}, {@code ms}, {@code us}, {@code ns}, {@code min}. */
    static double seconds(String unit) {
        return switch (unit) {
            case "ns" -> 1e-9;
            case "us" -> 1e-6;
            case "ms" -> 1e-3;
            case "s" -> 1.0;
            case "min" -> 60.0;
            default -> throw new IllegalArgumentException("unknown JMH time unit '" + unit + "'");
        };
    }

    /** {@code score} in {@code ops/<unit>} as operations per second. */
    static double toOpsPerSecond(double score, String scoreUnit) {
        return score / seconds(after(scoreUnit, "ops/"));
    }

    /** {@code value} in {@code <unit>/op} as microseconds per operation. */
    static double toMicros(double value, String scoreUnit) {
        return value * seconds(before(scoreUnit, "/op")) / 1e-6;
    }

    private static String after(String unit, String prefix) {
        if (!unit.startsWith(prefix)) {
            throw new IllegalArgumentException("expected a throughput unit like ops/us, got '" + unit + "'");
        }
        return unit.substring(prefix.length());
    }

    private static String before(String unit, String suffix) {
        if (!unit.endsWith(suffix)) {
            throw new IllegalArgumentException("expected a time unit like us/op, got '" + unit + "'");
        }
        return unit.substring(0, unit.length() - suffix.length());
    }
}
