package dev.idemlab.lab.nemesis;

import dev.idemlab.lab.load.LedgerCheck;

import java.util.List;
import java.util.Map;

/**
 * What the checker found in one history. Immutable.
 *
 * @param ledgerCheck the load harness's own check of the same history against the ledger: charges,
 *     duplicates, answers the ledger contradicts
 * @param violations every violation, by key
 * @param explainedDuplicates charges beyond one per key that a counted fail-open, a counted lease loss
 *     or a store promise broken on purpose explains, or on its key a holder in a child JVM paused or killed
 * @param explanations how many duplicates each explanation covered
 */
public record NemesisVerdict(LedgerCheck ledgerCheck, List<Violation> violations, int explainedDuplicates,
                             Map<String, Integer> explanations) {

    public NemesisVerdict {
        violations = List.copyOf(violations);
        explanations = Map.copyOf(explanations);
    }

    /** This verdict with {@code more} violations, found by a check beside the history's (the orders' table). */
    NemesisVerdict with(List<Violation> more) {
        if (more.isEmpty()) {
            return this;
        }
        List<Violation> all = new java.util.ArrayList<>(violations);
        all.addAll(more);
        return new NemesisVerdict(ledgerCheck, all, explainedDuplicates, explanations);
    }

    public boolean passed() {
        return violations.isEmpty();
    }
}
