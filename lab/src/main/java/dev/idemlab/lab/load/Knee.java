package dev.idemlab.lab.load;

import java.util.List;
import java.util.Locale;

/**
 * What a {@link KneeSearch} found. Immutable and thread-safe.
 *
 * @param passing the highest rate that passed, or 0 when none did
 * @param failing the lowest rate above it that failed, or 0 when none did (the knee is above every rate
 *     tried)
 * @param steps every run, in the order they ran
 */
public record Knee(long passing, long failing, List<KneeStep> steps) {

    public Knee {
        steps = List.copyOf(steps);
    }

    /** Whether a passing and a failing rate bracket the knee. */
    public boolean bracketed() {
        return passing > 0 && failing > 0;
    }

    /** {@code 6,011/s}, {@code at least 64,000/s} when nothing failed, {@code under 500/s} when nothing passed. */
    public String describe() {
        if (passing == 0) {
            return String.format(Locale.ROOT, "under %,d/s", failing);
        }
        return String.format(Locale.ROOT, failing == 0 ? "at least %,d/s" : "%,d/s", passing);
    }
}
