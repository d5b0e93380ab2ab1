package dev.idemlab.lab.load;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One run of a {@link KneeSearch}, judged: it passes when its p99 is under the bound, the ledger holds
 * no duplicate charge and no response disagrees with it. Immutable and thread-safe.
 *
 * @param number the step's place in its search, from 1
 * @param rate the arrival rate it offered, logical requests per second
 * @param measured what the run measured
 * @param p99BoundMs the bound its p99 was held to
 */
public record KneeStep(int number, long rate, KneeSearch.Measured measured, double p99BoundMs) {

    /** Whether the step kept every rule. */
    public boolean passed() {
        return why().isEmpty();
    }

    /** The rules it broke, one phrase each; empty when it passed. */
    public List<String> why() {
        List<String> broken = new ArrayList<>();
        if (!(measured.p99Ms() < p99BoundMs)) {
            broken.add(String.format(Locale.ROOT, "p99 %.1f ms is not under %.0f ms", measured.p99Ms(), p99BoundMs));
        }
        if (measured.duplicateCharges() > 0) {
            broken.add(measured.duplicateCharges() + " duplicate charge(s)");
        }
        if (measured.disagreements() > 0) {
            broken.add(measured.disagreements() + " response(s) the ledger contradicts");
        }
        return broken;
    }

    /** {@code 4,000/s offered: 4,790/s answered, p99 23.1 ms, 0 duplicate charges: pass}. */
    public String describe() {
        return String.format(Locale.ROOT, "%,d/s offered: %,.0f/s answered, p99 %.1f ms, %d duplicate charges: %s",
                rate, measured.throughput(), measured.p99Ms(), measured.duplicateCharges(),
                passed() ? "pass" : "fail (" + String.join(", ", why()) + ")");
    }
}
