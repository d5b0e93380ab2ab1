package dev.idemlab.lab.probe;

/**
 * One line of the conformance table.
 *
 * @param check what was sent
 * @param expected what should come back, and whose rule says so: the draft's, common practice, this lab's,
 *     or the API's published rule
 * @param got what came back
 * @param verdict pass, fail, skip or note
 * @param rule when it failed, the rule that was violated; else empty
 */
public record ProbeRow(String check, String expected, String got, Verdict verdict, String rule) {

    /** How a check went. */
    public enum Verdict {
        PASS, FAIL, SKIP,
        /** Not a violation, but worth knowing: for instance a key longer than the lab's limit accepted. */
        NOTE;

        String id() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    static ProbeRow pass(String check, String expected, String got) {
        return new ProbeRow(check, expected, got, Verdict.PASS, "");
    }

    static ProbeRow fail(String check, String expected, String got, String rule) {
        return new ProbeRow(check, expected, got, Verdict.FAIL, rule);
    }

    static ProbeRow of(boolean passed, String check, String expected, String got, String rule) {
        return passed ? pass(check, expected, got) : fail(check, expected, got, rule);
    }
}
