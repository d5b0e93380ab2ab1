package dev.idemlab.lab.scenario;

import dev.idemlab.lab.infra.Origin;
import dev.idemlab.lab.infra.ServerInfo;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The gate's verdicts on crafted runs, each a way the lab could go wrong. */
class ExpectationsTest {

    private static final ServerInfo MEMORY = new ServerInfo("memory", "in-process", Origin.IN_PROCESS, "in-process");

    private static ScenarioRun run(String scenario, String policy, String label, List<String> responses,
                                   List<String> charges, long storageErrors) {
        List<CallerResult> callers = responses.stream()
                .map(r -> new CallerResult("c", 0, 1, r, r.startsWith("ch_") ? "executed" : "error", charges.size()))
                .toList();
        return new ScenarioRun(scenario, policy, label, MEMORY, Map.of(), callers, charges, storageErrors, "", List.of());
    }

    /** A crash-mid-order run of a workflow policy for a charge of unknown outcome, killed after the answer. */
    private static ScenarioRun unknownOutcome(String policy, List<String> responses, List<String> charges, int receipts) {
        List<CallerResult> callers = responses.stream().map(r -> new CallerResult("c", 0, 1, r, "", charges.size()))
                .toList();
        return new ScenarioRun("crash-mid-order", "wait", policy, MEMORY, Map.of("ifOutcomeUnknown", policy,
                "boundary", "charge_answered", "orders", 1, "receipts", receipts, "mitigated", true), callers, charges,
                0, "", List.of());
    }

    /** A redelivery-crash row: consumer A killed at {@code boundary}, B's answer, what was read back. */
    private static ScenarioRun crashedConsumer(boolean mitigated, String boundary, List<String> charges,
                                               long committedOffset, Integer orders) {
        List<CallerResult> callers = List.of(new CallerResult("A (child JVM)", 0, 1, "killed at " + boundary,
                "sigkill, exit 137", 1), new CallerResult("B", 1, 2, charges.get(charges.size() - 1), "executed",
                charges.size()));
        Map<String, Object> settings = new java.util.HashMap<>(Map.of("mitigated", mitigated, "boundary", boundary,
                "committedOffset", committedOffset, "recordHandled", committedOffset == 1, "holderExit", 137));
        if (orders != null) {
            settings.put("orders", orders);
        }
        return new ScenarioRun("redelivery-crash", "wait", "a mode, killed at " + boundary, MEMORY, settings, callers,
                charges, 0, "", List.of());
    }

    /** A redelivery row: B delivered the record during A's charge or not, the consumers' answers, the ledger. */
    private static ScenarioRun redelivered(String policy, boolean bDuringA, List<String> responses, List<String> charges,
                                           Integer orders) {
        List<CallerResult> callers = List.of(new CallerResult("A", 0, 300, responses.get(0), "executed", 1),
                new CallerResult("B", bDuringA ? 100 : 400, 450, responses.get(1), "waited", charges.size()));
        Map<String, Object> settings = new java.util.HashMap<>(Map.of("bDuringA", bDuringA));
        if (orders != null) {
            settings.put("orders", orders);
        }
        return new ScenarioRun("redelivery", policy, "a row", MEMORY, settings, callers, charges, 0, "", List.of());
    }

    @Test
    void aRedeliveryRowMustStageTheRaceAndChargeAsItsPolicySays() {
        List<String> twice = List.of("ch_1", "ch_2");
        List<String> once = List.of("ch_1");
        assertThat(Expectations.check(redelivered("run", true, List.of("ch_1", "ch_2"), twice, null)).passed()).isTrue();
        assertThat(Expectations.check(redelivered("run", true, List.of("ch_1", "ch_1"), once, null)).passed())
                .as("the processed-messages table charged once: the race was not reproduced").isFalse();
        assertThat(Expectations.check(redelivered("wait", true, List.of("ch_1", "ch_1"), once, null)).passed()).isTrue();
        assertThat(Expectations.check(redelivered("raise", true, List.of("ch_1", "ch_1"), twice, null)).passed())
                .as("the adapter charged twice").isFalse();
        assertThat(Expectations.check(redelivered("wait", false, List.of("ch_1", "ch_1"), once, null)).passed())
                .as("B was delivered the record after A was done: no race, nothing shown").isFalse();
        assertThat(Expectations.check(redelivered("wait", true, List.of("ch_1", "ch_1"), once, 2)).passed())
                .as("the inbox left two order rows").isFalse();
    }

    /** A DBOS crashed-worker cell: the boundary, the downstream key, what the ledgers and the orders table hold. */
    private static ScenarioRun dbosCell(String phase, boolean key, int orders, List<String> charges, int receipts,
                                        String status) {
        List<CallerResult> callers = List.of(new CallerResult("worker", 0, 0, "killed after " + phase, "crash", 0),
                new CallerResult("retry", 0, 0, "order 1", "recovered", charges.size()));
        return new ScenarioRun("dbos-crashed-worker", "wait", "DBOS, killed after " + phase, MEMORY, Map.of("phase", phase,
                "downstreamKey", key, "mitigated", key, "orders", orders, "receipts", receipts, "status", status), callers,
                charges, 0, "", List.of());
    }

    @Test
    void aDbosCellMustShowItsPublishedDuplicateWithoutTheKeyAndNoneWithIt() {
        List<String> twice = List.of("ch_1", "ch_2");
        List<String> once = List.of("ch_1");
        assertThat(Expectations.check(dbosCell("charge_created", false, 1, twice, 1, "SUCCESS")).passed()).isTrue();
        assertThat(Expectations.check(dbosCell("charge_created", false, 1, once, 1, "SUCCESS")).passed())
                .as("the charge was not re-run: the crash was not reproduced").isFalse();
        assertThat(Expectations.check(dbosCell("receipt_sent", false, 1, once, 2, "SUCCESS")).passed()).isTrue();
        assertThat(Expectations.check(dbosCell("order_paid", false, 1, twice, 1, "SUCCESS")).passed())
                .as("a transactional step's boundary charged again").isFalse();
        assertThat(Expectations.check(dbosCell("charge_created", true, 1, once, 1, "SUCCESS")).passed()).isTrue();
        assertThat(Expectations.check(dbosCell("charge_created", true, 1, twice, 1, "SUCCESS")).passed())
                .as("with the downstream key the provider deduplicates").isFalse();
        assertThat(Expectations.check(dbosCell("order_created", true, 2, once, 1, "SUCCESS")).passed())
                .as("two orders").isFalse();
        assertThat(Expectations.check(dbosCell("order_created", true, 1, once, 1, "ERROR")).passed())
                .as("the recovered workflow did not succeed").isFalse();
    }

    @Test
    void aCrashedConsumerRowMustShowItsDuplicateOnlyWhereTheModeLeavesOneAndNeverLoseTheRecord() {
        List<String> twice = List.of("ch_1", "ch_2");
        List<String> once = List.of("ch_1");
        assertThat(Expectations.check(crashedConsumer(false, "charge_created", twice, 1, null)).passed()).isTrue();
        assertThat(Expectations.check(crashedConsumer(false, "charge_created", once, 1, null)).passed())
                .as("killed after the charge without the downstream key, one charge: the crash was not reproduced")
                .isFalse();
        assertThat(Expectations.check(crashedConsumer(false, "record_completed", twice, 1, null)).passed())
                .as("a completed record charged again").isFalse();
        assertThat(Expectations.check(crashedConsumer(true, "charge_created", once, 1, 1)).passed()).isTrue();
        assertThat(Expectations.check(crashedConsumer(true, "charge_created", twice, 1, 1)).passed()).isFalse();
        assertThat(Expectations.check(crashedConsumer(true, "charge_created", once, 1, 2)).passed())
                .as("the inbox left two order rows").isFalse();
        assertThat(Expectations.check(crashedConsumer(true, "record_received", once, 0, null)).passed())
                .as("the group never committed past the record").isFalse();
        ScenarioRun exitedByItself = crashedConsumer(true, "charge_created", once, 1, null);
        Map<String, Object> settings = new java.util.HashMap<>(exitedByItself.settings());
        settings.put("holderExit", 1);
        assertThat(Expectations.check(new ScenarioRun(exitedByItself.scenario(), exitedByItself.policy(),
                exitedByItself.label(), MEMORY, settings, exitedByItself.callers(), exitedByItself.charges(), 0, "",
                List.of())).passed()).as("the consumer's JVM exited by itself, not by SIGKILL").isFalse();
    }

    @Test
    void aStopThatChargedAgainOrAnsweredARetryFailsTheGate() {
        String stopped = "StepOutcomeUnknownException (unknown outcome at step charge_created)";
        assertThat(Expectations.check(unknownOutcome("STOP", List.of("killed", stopped, stopped), List.of("ch_1"), 0))
                .passed()).isTrue();
        assertThat(Expectations.check(unknownOutcome("STOP", List.of("killed", stopped, stopped),
                List.of("ch_1", "ch_2"), 0)).passed()).isFalse();
        assertThat(Expectations.check(unknownOutcome("STOP", List.of("killed", stopped, "{charge_created=ch_1}"),
                List.of("ch_1"), 0)).passed()).isFalse();
    }

    @Test
    void askFirstMustChargeOnceAndReRunMustShowItsDuplicate() {
        assertThat(Expectations.check(unknownOutcome("ASK_FIRST", List.of("killed", "ok"), List.of("ch_1"), 1))
                .passed()).isTrue();
        assertThat(Expectations.check(unknownOutcome("ASK_FIRST", List.of("killed", "ok"), List.of("ch_1", "ch_2"), 1))
                .passed()).isFalse();
        assertThat(Expectations.check(unknownOutcome("RERUN_WITH_DOWNSTREAM_KEY", List.of("killed", "ok"),
                List.of("ch_1"), 1)).passed()).as("re-run after the charge landed must show the second charge").isFalse();
    }

    @Test
    void waitWithOneChargeAndEveryCallerOnItPasses() {
        assertThat(Expectations.check(run("in-flight", "wait", "", List.of("ch_1", "ch_1"), List.of("ch_1"), 0)).passed())
                .isTrue();
    }

    @Test
    void waitWithTwoChargesFailsEvenWhenTheResponsesAgree() {
        CheckResult result = Expectations.check(run("in-flight", "wait", "", List.of("ch_1", "ch_1"),
                List.of("ch_1", "ch_2"), 0));
        assertThat(result.passed()).isFalse();
        assertThat(result.message()).contains("promises exactly-once but the provider charged 2 times");
    }

    @Test
    void raiseMustAnswerTheSecondCallerInProgress() {
        assertThat(Expectations.check(run("in-flight", "raise", "", List.of("ch_1", "ch_1"), List.of("ch_1"), 0)).passed())
                .isFalse();
    }

    @Test
    void runWithoutADoubleChargeFails() {
        CheckResult result = Expectations.check(run("in-flight", "run", "", List.of("ch_1", "ch_1"), List.of("ch_1"), 0));
        assertThat(result.passed()).isFalse();
        assertThat(result.message()).contains("lost its point");
    }

    @Test
    void keyReuseThatChargedAgainFails() {
        assertThat(Expectations.check(run("key-reuse", "wait", "", List.of("ch_1", "ch_1", "ch_2"),
                List.of("ch_1", "ch_2"), 0)).passed()).isFalse();
    }

    @Test
    void keyReuseAsThePostShowsItPasses() {
        assertThat(Expectations.check(run("key-reuse", "wait", "", List.of("ch_1", "ch_1", "IdempotencyKeyReuseException"),
                List.of("ch_1"), 0)).passed()).isTrue();
    }

    @Test
    void keyReuseThatHandedTheOtherAmountTheFirstChargeFailsThoughOnlyOneChargeWasMade() {
        // The reuse went unnoticed: the amount-5 request replayed the amount-10 charge.
        assertThat(Expectations.check(run("key-reuse", "wait", "", List.of("ch_1", "ch_1", "ch_1"),
                List.of("ch_1"), 0)).passed()).isFalse();
    }

    @Test
    void keyReuseWhoseRetryGotAnotherChargeIdFails() {
        assertThat(Expectations.check(run("key-reuse", "wait", "", List.of("ch_1", "ch_9", "IdempotencyKeyReuseException"),
                List.of("ch_1"), 0)).passed()).isFalse();
    }

    @Test
    void storeDownMustCountTheStorageError() {
        assertThat(Expectations.check(run("store-down", "wait", "fail open", List.of("ch_1"), List.of("ch_1"), 0)).passed())
                .isFalse();
        assertThat(Expectations.check(run("store-down", "wait", "fail open", List.of("ch_1"), List.of("ch_1"), 1)).passed())
                .isTrue();
        assertThat(Expectations.check(run("store-down", "wait", "fail closed",
                List.of("IdempotencyStoreUnavailableException"), List.of(), 1)).passed()).isTrue();
    }
}
