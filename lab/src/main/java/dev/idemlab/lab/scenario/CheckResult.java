package dev.idemlab.lab.scenario;

/**
 * One line of {@code lab check}: whether one run kept the promise its policy makes.
 *
 * @param passed whether it did
 * @param store the store the run used
 * @param run {@code scenario/policy}
 * @param message what was checked against the ledger, and what was found
 */
public record CheckResult(boolean passed, String store, String run, String message) {

    /** {@code PASS redis     in-flight/wait        one charge [ch_1], every caller got ch_1}. */
    public String line() {
        return String.format("%s %-9s %-22s %s", passed ? "PASS" : "FAIL", store, run, message);
    }
}
