package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.Outcome;
import dev.idemlab.lab.faults.FaultKind;
import org.junit.jupiter.api.Test;

import static dev.idemlab.lab.nemesis.HandBuiltHistory.ms;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A call whose reserve timed out but landed, and which failed open, charged once; its marker must then
 * be completed with that charge, and a later call replays it. Before the checker knew which reserves
 * landed, a later call that reserved the key after that marker was released, or left to expire, and
 * charged again passed as the key's one charge, the fail-open's own charge explained by its fail-open
 * (the settle-* mutants went uncaught). Now it is flagged wherever the store was calm long enough for
 * the settle before the marker could expire, and left alone where it was not, or where the store is
 * not one whose calls keep their order.
 */
class SettledFailOpensTest {

    private static final int KEY = 4;

    /** A fail-open under a drop-requests outage whose reserve was seen landed at 2.6 s, its lease to 5.5 s. */
    private static HandBuiltHistory landedFailOpen(String store) {
        HandBuiltHistory history = new HandBuiltHistory(store).fault(FaultKind.DROP_REPLIES, 0, 2500);
        CallRecord failOpen = history.failedOpen(KEY, 100, 2100, 2130);
        failOpen.reserveSeenLanded(ms(2600), ms(5500));
        return history;
    }

    @Test
    void aCallThatReservesAndChargesAfterASettledFailOpensMarkerWasSeenIsFlagged() {
        HandBuiltHistory history = landedFailOpen("redis");
        history.holder(KEY, 3000, 6000, 6030, Outcome.EXECUTED); // after the marker expired, instead of a replay

        NemesisVerdict verdict = history.check();

        assertThat(verdict.violations()).extracting(Violation::rule).contains("charge-after-settled-fail-open");
        assertThat(verdict.violations()).filteredOn(violation -> violation.rule().equals("charge-after-settled-fail-open"))
                .singleElement().satisfies(violation -> assertThat(violation.detail())
                        .contains("call 1").contains("call 0").contains("failed open"));
    }

    @Test
    void aReplayAfterASettledFailOpenIsHonest() {
        HandBuiltHistory history = landedFailOpen("redis");
        history.replay(KEY, 3000, 3010, "ch_1");

        assertThat(history.check().violations()).isEmpty();
    }

    @Test
    void aChargeAfterAMarkerTheStoreGaveNoCalmToSettleBeforeItExpiredIsNotThisRulesToFlag() {
        HandBuiltHistory history = landedFailOpen("redis").fault(FaultKind.DROP_REQUESTS, 3000, 6000);
        history.holder(KEY, 3000, 7500, 7530, Outcome.EXECUTED);

        assertThat(history.check().violations()).extracting(Violation::rule)
                .doesNotContain("charge-after-settled-fail-open");
    }

    @Test
    void aRestartFromASnapshotThatCouldHaveLostTheMarkerExcusesTheLaterCharge() {
        HandBuiltHistory history = landedFailOpen("redis").fault(FaultKind.RESTART_FROM_SNAPSHOT, 2550, 2700);
        history.holder(KEY, 3000, 6000, 6030, Outcome.EXECUTED);

        assertThat(history.check().violations()).extracting(Violation::rule)
                .doesNotContain("charge-after-settled-fail-open");
    }

    /**
     * Over a pool (PostgreSQL) a held-up reserve can land after the settle's complete, but that complete
     * wrote the result where the key was free, so the late reserve leaves no marker (see
     * LateLandingReserveFindsTheSettledResultTest): the rule holds there too. It stayed silent off a
     * standalone Redis before, and a settle that released or never came went unseen on PostgreSQL.
     */
    @Test
    void overAPoolTheRuleHoldsToo() {
        HandBuiltHistory history = landedFailOpen("postgres");
        history.holder(KEY, 3000, 6000, 6030, Outcome.EXECUTED);

        assertThat(history.check().violations()).extracting(Violation::rule)
                .contains("charge-after-settled-fail-open");
    }

    @Test
    void onTheInMemoryStoreWhoseCallsCannotFailTheRuleHasNothingToRead() {
        HandBuiltHistory history = landedFailOpen("memory");
        history.holder(KEY, 3000, 6000, 6030, Outcome.EXECUTED);

        assertThat(history.check().violations()).extracting(Violation::rule)
                .doesNotContain("charge-after-settled-fail-open");
    }

    @Test
    void aFailOpenWhoseActionThrewHasItsMarkerReleasedAndTheNextCallChargesHonestly() {
        HandBuiltHistory history = new HandBuiltHistory("redis").fault(FaultKind.DROP_REPLIES, 0, 2500);
        history.failedOpenAndThrew(KEY, 100, 2100, 2130).reserveSeenLanded(ms(2600), ms(5500));
        history.holder(KEY, 3000, 6000, 6030, Outcome.EXECUTED);

        assertThat(history.check().violations()).isEmpty();
    }

    /**
     * On PostgreSQL a reserve whose reply was dropped lands as the call begins, and the outage that made it
     * fail open two seconds later outlasts its marker: the calm comes only after the marker could have
     * expired. The settle still tries for a lease after the action, and its complete writes on the free
     * key, so where no other call of the key was out in between, a call sent after that calm must replay.
     * The rule used to ask for a calm within the marker's lease, and let such a charge pass (the settle-*
     * mutants went uncaught on PostgreSQL).
     */
    @Test
    void aChargeAfterACalmPastTheMarkersEndIsFlaggedWhereNobodyCouldHaveTakenTheFreeKey() {
        HandBuiltHistory history = new HandBuiltHistory("postgres").fault(FaultKind.DROP_REPLIES, 0, 2600);
        history.failedOpen(KEY, 100, 2100, 2130).reserveSeenLanded(ms(3000), ms(3100));
        history.holder(KEY, 5000, 5010, 5040, Outcome.EXECUTED); // sent after the calm from 3.6 s, instead of a replay

        assertThat(history.check().violations()).extracting(Violation::rule).contains("charge-after-settled-fail-open");
    }

    @Test
    void aCallOutBetweenTheMarkersEndAndTheCalmMayHaveTakenTheFreeKeyFirst() {
        HandBuiltHistory history = new HandBuiltHistory("postgres").fault(FaultKind.DROP_REPLIES, 0, 2600);
        history.failedOpen(KEY, 100, 2100, 2130).reserveSeenLanded(ms(3000), ms(3100));
        history.holder(KEY, 3200, 3250, 3280, Outcome.EXECUTED); // took the key as the marker expired, before the calm
        history.holder(KEY, 5000, 5010, 5040, Outcome.EXECUTED);

        assertThat(history.check().violations()).extracting(Violation::rule)
                .doesNotContain("charge-after-settled-fail-open");
    }

    @Test
    void aCallSentBeforeACalmPastTheMarkersEndIsNotHeldToIt() {
        HandBuiltHistory history = new HandBuiltHistory("postgres").fault(FaultKind.DROP_REPLIES, 0, 2600);
        history.failedOpen(KEY, 100, 2100, 2130).reserveSeenLanded(ms(3000), ms(3100));
        history.holder(KEY, 4000, 4010, 4040, Outcome.EXECUTED); // sent at 4.0 s: the settle is sure only by 4.35 s

        assertThat(history.check().violations()).extracting(Violation::rule)
                .doesNotContain("charge-after-settled-fail-open");
    }

    @Test
    void aCalmOnlyAfterTheSettleGaveUpHoldsNobody() {
        HandBuiltHistory history = new HandBuiltHistory("postgres").fault(FaultKind.DROP_REPLIES, 0, 4500);
        history.failedOpen(KEY, 100, 2100, 2130).reserveSeenLanded(ms(3000), ms(3100));
        history.holder(KEY, 7000, 7010, 7040, Outcome.EXECUTED); // the settle tried until 5.1 s, all of it in the outage

        assertThat(history.check().violations()).extracting(Violation::rule)
                .doesNotContain("charge-after-settled-fail-open");
    }

    @Test
    void aCallSentBeforeTheMarkerWasSeenIsNotFlagged() {
        HandBuiltHistory history = landedFailOpen("redis");
        history.holder(KEY, 2550, 6000, 6030, Outcome.EXECUTED);

        assertThat(history.check().violations()).extracting(Violation::rule)
                .doesNotContain("charge-after-settled-fail-open");
    }
}
