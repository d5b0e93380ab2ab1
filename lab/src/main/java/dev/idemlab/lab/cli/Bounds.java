package dev.idemlab.lab.cli;

/** The documented range of every number option; beyond it, a usage error naming the option and the range. */
final class Bounds {

    private Bounds() { }

    /** @throws UsageException if {@code value} is outside {@code min..max} */
    static long check(String option, long value, long min, long max) {
        if (value < min || value > max) {
            throw new UsageException(option + " must be between " + min + " and " + max + ", got " + value);
        }
        return value;
    }
}
