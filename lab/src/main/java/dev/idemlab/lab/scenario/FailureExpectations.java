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
        Object policy = run.settings().get("ifOutcomeUnknown");
        if (policy != null) {
            checkUnknownOutcome(run, policy.toString(), problems);
            return;
        }
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

    /** The exit status the JVM reports for a child that SIGKILL ended: 128 + 9. */
    private static final int SIGKILLED = 137;

    /**
     * DBOS Transact's order workflow, its worker killed (or paused while another executor recovers the
     * workflow) right after a step's effect ({@code dbos-crashed-worker}). DBOS checkpoints a step's output
     * after the step returns: the order steps are database transactions that commit with their checkpoint,
     * but the charge and the receipt are calls to a provider, so a worker that dies between such a call and
     * its checkpoint has the call run again when the workflow is recovered (at least once, as DBOS documents
     * its steps). Without the downstream key that second call must show in its ledger (else the crash was
     * not reproduced); with it the provider deduplicates and every cell is one order, one charge, one
     * receipt. In every cell the recovered workflow must have ended in SUCCESS.
     */
    static void checkDbosCrashedWorker(ScenarioRun run, List<String> problems) {
        boolean key = Boolean.TRUE.equals(run.settings().get("downstreamKey"));
        String phase = String.valueOf(run.settings().get("phase"));
        int orders = ((Number) run.settings().get("orders")).intValue();
        int receipts = ((Number) run.settings().get("receipts")).intValue();
        int charges = run.charges().size();
        int wantCharges = !key && phase.equals("charge_created") ? 2 : 1;
        int wantReceipts = !key && phase.equals("receipt_sent") ? 2 : 1;
        if (orders != 1 || charges != wantCharges || receipts != wantReceipts) {
            boolean finding = wantCharges + wantReceipts > 2;
            problems.add(run.label() + (finding
                    ? " must re-run the provider call its worker died after (" + wantCharges + " charges, " + wantReceipts
                            + " receipts, 1 order), else the crash was not reproduced and the lab has lost its point"
                    : " must leave exactly one order, one charge and one receipt")
                    + "; read back " + orders + " orders, ledger " + run.charges() + ", " + receipts + " receipts");
        }
        if (!"SUCCESS".equals(run.settings().get("status"))) {
            problems.add(run.label() + ": the recovered workflow ended in " + run.settings().get("status")
                    + ", not SUCCESS");
        }
    }

    /**
     * A consumer killed at a boundary of handling the charge record, and the record redelivered to another
     * member of its group ({@code redelivery-crash}). Killed after the charge, a mode that does not pass the
     * downstream key to a deduplicating provider must show the second charge (else the crash was not
     * reproduced); every other row exactly one charge. In every row the record must have been handled: the
     * group's committed offset past it (nothing lost), the child ended by the SIGKILL (exit status 137), and the inbox one order row.
     */
    static void checkRedeliveryCrash(ScenarioRun run, List<String> problems) {
        boolean mitigated = Boolean.TRUE.equals(run.settings().get("mitigated"));
        boolean afterCharge = "charge_created".equals(run.settings().get("boundary"));
        int charges = run.charges().size();
        if (afterCharge && !mitigated && charges < 2) {
            problems.add(run.label() + " did not charge twice (ledger " + run.charges()
                    + "): the crash was not reproduced and the lab has lost its point");
        } else if (afterCharge && !mitigated && charges > 2) {
            problems.add(run.label() + " charged " + charges + " times (ledger " + run.charges()
                    + "): one redelivery after one crash accounts for two at most");
        } else if ((!afterCharge || mitigated) && charges != 1) {
            problems.add(run.label() + " must charge exactly once, the ledger has " + run.charges());
        }
        if (!Boolean.TRUE.equals(run.settings().get("recordHandled"))) {
            problems.add(run.label() + ": the record was not handled, the group's committed offset is "
                    + run.settings().get("committedOffset") + ", not 1 (past the record)");
        }
        Object orders = run.settings().get("orders");
        if (orders != null && ((Number) orders).intValue() != 1) {
            problems.add(run.label() + " must leave exactly one order row, read back " + orders);
        }
        if (!Integer.valueOf(SIGKILLED).equals(run.settings().get("holderExit"))) {
            problems.add(run.label() + ": the consumer's JVM (pid " + run.settings().get("holderPid")
                    + ") exited with " + run.settings().get("holderExit") + ", not " + SIGKILLED
                    + " (killed by SIGKILL): the crash was not the one staged");
        }
    }

    /**
     * A holder killed inside the workflow's charge step, at a provider that does not deduplicate, and a
     * retry that finds the step of unknown outcome. One order in every case (the order's step had its
     * recovery point). Re-run: two charges when the holder died after the provider answered (the duplicate
     * the policy risks, shown), one when it died before. Ask first: one charge and one receipt either way.
     * Stop: no charge beyond the holder's (one after the answer, none before), no receipt, and every retry
     * answers "unknown outcome at step charge_created".
     */
    private static void checkUnknownOutcome(ScenarioRun run, String policy, List<String> problems) {
        int orders = ((Number) run.settings().get("orders")).intValue();
        int receipts = ((Number) run.settings().get("receipts")).intValue();
        int charges = run.charges().size();
        boolean answered = "charge_answered".equals(run.settings().get("boundary"));
        int expectedCharges = switch (policy) {
            case "RERUN_WITH_DOWNSTREAM_KEY" -> answered ? 2 : 1;
            case "STOP" -> answered ? 1 : 0;
            default -> 1;
        };
        int expectedReceipts = policy.equals("STOP") ? 0 : 1;
        if (orders != 1 || charges != expectedCharges || receipts != expectedReceipts) {
            problems.add(run.label() + " must leave 1 order, " + expectedCharges + " charges and " + expectedReceipts
                    + " receipts; read back " + orders + " orders, ledger " + run.charges() + ", " + receipts
                    + " receipts");
        }
        if (policy.equals("STOP")) {
            List<CallerResult> retries = run.callers().subList(1, run.callers().size());
            if (retries.size() < 2 || !retries.stream().allMatch(retry -> retry.response().startsWith(
                    "StepOutcomeUnknownException (unknown outcome at step charge_created)"))) {
                problems.add(run.label() + ": every retry must answer unknown outcome at step charge_created; got "
                        + retries.stream().map(CallerResult::response).toList());
            }
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
