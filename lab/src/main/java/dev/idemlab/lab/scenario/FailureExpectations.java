package dev.idemlab.lab.scenario;

import java.util.List;

/**
 * What the failure lab's runs must show. Every unmitigated variant must show its duplicate in the
 * ledger (else the lab has lost its point, as with the run policy), every mitigated one exactly one
 * charge; a few scenarios say more about what the callers got.
 */
final class FailureExpectations {

    static final String IN_PROGRESS = "IdempotencyInProgressException";
    static final String PROVIDER_TIMEOUT = "ProviderTimeoutException";
    static final String REPLAY_UNAVAILABLE = "IdempotentReplayUnavailableException";

    private FailureExpectations() { }

    static void check(ScenarioRun run, List<String> problems) {
        boolean mitigated = Boolean.TRUE.equals(run.settings().get("mitigated"));
        int charges = run.charges().size();
        if (run.scenario().equals("large-result")) {
            checkLargeResult(run, mitigated, problems);
            return;
        }
        if (mitigated && charges != 1) {
            problems.add(run.label() + " must charge exactly once, the ledger has " + run.charges());
        }
        if (!mitigated && charges < 2) {
            problems.add(run.label() + " did not charge twice (ledger " + run.charges()
                    + "): the failure was not reproduced and the lab has lost its point");
        }
        switch (run.scenario()) {
            case "provider-ambiguous" -> {
                if (mitigated) {
                    Expectations.expectResponses(run, problems, 1, PROVIDER_TIMEOUT, "C");
                }
            }
            case "scope" -> {
                if (mitigated) {
                    Expectations.expectResponses(run, problems, 1, "C", "C");
                }
            }
            case "store-down" -> {
                if (run.storageErrors() == 0) {
                    problems.add("the store was down but no storage error was counted");
                }
                if (mitigated) {
                    Expectations.expectResponses(run, problems, 1, "C", "C");
                }
            }
            default -> { }
        }
    }

    /**
     * An order placement: mitigated, exactly one order row, one charge and (where the mode reached the
     * mailer) one receipt, read back from the orders table and both ledgers; unmitigated, a duplicate
     * order or charge, else the failure was not reproduced.
     */
    static void checkOrder(ScenarioRun run, List<String> problems) {
        boolean mitigated = Boolean.TRUE.equals(run.settings().get("mitigated"));
        int orders = ((Number) run.settings().get("orders")).intValue();
        int receipts = ((Number) run.settings().get("receipts")).intValue();
        int charges = run.charges().size();
        if (mitigated && (orders != 1 || charges != 1 || receipts != 1)) {
            problems.add(run.label() + " must leave exactly one order, one charge and one receipt; read back "
                    + orders + " orders, ledger " + run.charges() + ", " + receipts + " receipts");
        }
        if (!mitigated && orders < 2 && charges < 2) {
            problems.add(run.label() + " left no duplicate (" + orders + " orders, ledger " + run.charges()
                    + "): the failure was not reproduced and the lab has lost its point");
        }
    }

    /** Without a reference the replay fails clearly; with one, every caller gets the first charge back whole. */
    private static void checkLargeResult(ScenarioRun run, boolean byReference, List<String> problems) {
        if (byReference) {
            Expectations.expectResponses(run, problems, 1, "C", "C");
            if (!Boolean.TRUE.equals(run.settings().get("everyCallerGotWholeResult"))) {
                problems.add("a replay did not return the whole result");
            }
        } else {
            Expectations.expectResponses(run, problems, 1, "C", REPLAY_UNAVAILABLE);
        }
    }
}
