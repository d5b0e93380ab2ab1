package dev.idemlab.lab.faults;

/**
 * One fault of the catalogue on one store: how it was injected, the invariant it guards, what the
 * provider's ledger and the coordinator's answers showed, and the verdict.
 *
 * @param number the fault's number in the catalogue
 * @param fault what goes wrong
 * @param store the store it ran on, or "any" for faults that do not depend on one
 * @param injection how it was injected here
 * @param invariant what must hold (I1..I5 of the catalogue, or the fault's own rule)
 * @param observed what happened, read off the ledger and the answers
 * @param verdict holds, violated, does not apply (observed says why), or shown elsewhere (observed says where)
 */
public record FaultRow(int number, String fault, String store, String injection, String invariant, String observed,
                       Verdict verdict) {

    /** How a row ended. */
    public enum Verdict {
        HOLDS("holds"), VIOLATED("VIOLATED"), DOES_NOT_APPLY("does not apply"), SHOWN_ELSEWHERE("shown elsewhere");

        private final String word;

        Verdict(String word) {
            this.word = word;
        }

        public String word() {
            return word;
        }
    }
}
