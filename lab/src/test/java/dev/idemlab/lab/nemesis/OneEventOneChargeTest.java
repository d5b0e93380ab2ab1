package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.Outcome;
import dev.idemlab.lab.faults.FaultKind;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The checker cannot be talked out of a double charge: an event explains one charge, the one tied to it,
 * close to it in time. Each case here is a history written by hand (see {@link HandBuiltHistory}); the
 * first is the one the checker let stand at 943aef0, which pooled its explanations per key and took a
 * call that failed open for a holder whose lease a later call could take over.
 */
class OneEventOneChargeTest {

    private static final int KEY = 1;

    @Test
    void anEarlierFailOpenDoesNotExplainTwoHoldersInOneLiveLease() {
        HandBuiltHistory history = new HandBuiltHistory("redis").fault(FaultKind.KILL_CONNECTIONS, 0, 4500);
        history.failedOpen(KEY, 200, 300, 9000);
        history.holder(KEY, 5600, 5600, 8000, Outcome.EXECUTED);
        history.holder(KEY, 7100, 7100, 7200, Outcome.EXECUTED);

        NemesisVerdict verdict = history.check();

        assertThat(verdict.violations()).extracting(Violation::rule).containsExactly("duplicate-charge");
        assertThat(verdict.violations().get(0).witness())
                .anySatisfy(line -> assertThat(line).contains("call 0").contains("own fail-open"))
                .anySatisfy(line -> assertThat(line).contains("call 2").contains("UNEXPLAINED"))
                .anySatisfy(line -> assertThat(line).startsWith("fault kill-connections"));
    }

    @Test
    void twoHoldersInOneLiveLeaseAreADoubleChargeOnTheirOwn() {
        HandBuiltHistory history = new HandBuiltHistory("redis");
        history.holder(KEY, 5600, 5600, 8000, Outcome.EXECUTED);
        history.holder(KEY, 7100, 7100, 7200, Outcome.EXECUTED);

        assertThat(history.check().violations()).extracting(Violation::rule).containsExactly("duplicate-charge");
    }

    @Test
    void aFailOpenUnderAFaultExplainsItsOwnChargeOnce() {
        HandBuiltHistory history = new HandBuiltHistory("redis").fault(FaultKind.KILL_CONNECTIONS, 4000, 4500);
        history.holder(KEY, 0, 0, 100, Outcome.EXECUTED);
        history.failedOpen(KEY, 4200, 4300, 4400);

        NemesisVerdict verdict = history.check();

        assertThat(verdict.violations()).isEmpty();
        assertThat(verdict.explanations()).containsExactly(java.util.Map.entry("counted fail-open under a fault", 1));
    }

    @Test
    void onTheMemoryStoreAFailOpenExplainsNothing() {
        HandBuiltHistory history = new HandBuiltHistory("memory").fault(FaultKind.CLOCK_JUMP, 4000, 4500);
        history.holder(KEY, 0, 0, 100, Outcome.EXECUTED);
        history.failedOpen(KEY, 4200, 4300, 4400);

        assertThat(history.check().violations()).extracting(Violation::rule).containsExactly("duplicate-charge");
    }

    @Test
    void aCallThatTakesOverWhatAFailOpenLeftHasMadeAnUnexplainedCharge() {
        // The key's result was stored at 0.1 s. The fail-open is explained by its own store error; it never
        // reserved, so nothing of it could be taken over: the holder after it should have replayed, and its
        // charge is one too many.
        HandBuiltHistory history = new HandBuiltHistory("redis").fault(FaultKind.FREEZE, 10_000, 14_500);
        history.holder(KEY, 0, 0, 100, Outcome.EXECUTED);
        history.failedOpen(KEY, 10_200, 10_300, 14_600);
        history.holder(KEY, 13_900, 13_900, 14_000, Outcome.EXECUTED);

        NemesisVerdict verdict = history.check();

        assertThat(verdict.violations()).extracting(Violation::rule).containsExactly("duplicate-charge");
    }

    @Test
    void aRestartFromASnapshotExplainsOnlyWhatItCouldHaveLost() {
        HandBuiltHistory history = new HandBuiltHistory("redis").fault(FaultKind.RESTART_FROM_SNAPSHOT, 5000, 6000);
        // Key 1 reserved between the save and the restart: the restarted server had no record of it.
        history.holder(KEY, 5200, 5200, 9000, Outcome.EXECUTED);
        history.holder(KEY, 6300, 6300, 6400, Outcome.EXECUTED);
        // Key 2 completed long before the save: the snapshot held its result, the restart lost nothing of it.
        history.holder(2, 0, 0, 100, Outcome.EXECUTED);
        history.holder(2, 6300, 6300, 6400, Outcome.EXECUTED);

        NemesisVerdict verdict = history.check();

        assertThat(verdict.violations()).extracting(Violation::rule, Violation::key)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("duplicate-charge", 2));
        assertThat(verdict.explanations()).containsEntry("store promise broken on purpose (restart-from-snapshot)", 1);
    }

    /**
     * Found by the nemesis on Redis (seed 11, 60 s): a reservation made between the save and the restart
     * was lost with it; the call that took the key was sent 2.8 s after the restart and waited out a
     * pause of every command before its reserve got through, 4.4 s after it. Sent within the restart's
     * reach, it is explained, however long another fault held it.
     */
    @Test
    void aTakerSentWithinARestartsReachIsExplainedThoughAnotherFaultDelayedIt() {
        HandBuiltHistory history = new HandBuiltHistory("redis")
                .fault(FaultKind.RESTART_FROM_SNAPSHOT, 51_692, 53_662).fault(FaultKind.PAUSE_ALL, 56_236, 57_996);
        history.holder(KEY, 53_342, 53_342, 58_020, Outcome.LEASE_LOST);
        history.holder(KEY, 56_483, 58_017, 58_031, Outcome.EXECUTED);

        NemesisVerdict verdict = history.check();

        assertThat(verdict.violations()).isEmpty();
        assertThat(verdict.explanations()).containsEntry("store promise broken on purpose (restart-from-snapshot)", 1);
    }

    /**
     * Found by the nemesis on Redis (seed 11, 60 s): a reservation made during a restart from a snapshot was
     * lost with it; its holder ran on until 31.4 s and answered that it lost its lease, its complete
     * storing nothing. The key stayed free after that answer, and a retry sent 1 s later reserved it and
     * charged: the restart's doing, though more than a lease after it ended. Had the holder completed
     * (answered executed), the same retry would have had to replay.
     */
    @Test
    void aRestartsLostReservationReachesRetriesAfterItsHolderAnsweredLeaseLost() {
        HandBuiltHistory lost = new HandBuiltHistory("redis").fault(FaultKind.RESTART_FROM_SNAPSHOT, 26_119, 28_260);
        lost.holder(KEY, 27_638, 27_639, 31_375, Outcome.LEASE_LOST);
        lost.holder(KEY, 32_394, 32_394, 32_417, Outcome.EXECUTED);
        HandBuiltHistory completed = new HandBuiltHistory("redis").fault(FaultKind.RESTART_FROM_SNAPSHOT, 26_119, 28_260);
        completed.holder(KEY, 27_638, 27_639, 31_375, Outcome.EXECUTED);
        completed.holder(KEY, 34_394, 34_394, 34_417, Outcome.EXECUTED);

        assertThat(lost.check().violations()).isEmpty();
        assertThat(completed.check().violations()).extracting(Violation::rule).containsExactly("duplicate-charge");
    }

    @Test
    void aClockJumpExplainsOneTakeoverOfTheReservationItExpiredNotTwo() {
        HandBuiltHistory history = new HandBuiltHistory("memory").fault(FaultKind.CLOCK_JUMP, 1000, 1100);
        history.holder(KEY, 0, 0, 2000, Outcome.EXECUTED);
        history.holder(KEY, 1200, 1200, 1300, Outcome.EXECUTED);
        history.holder(KEY, 1500, 1500, 1600, Outcome.EXECUTED);

        NemesisVerdict verdict = history.check();

        assertThat(verdict.violations()).extracting(Violation::rule).containsExactly("duplicate-charge");
        assertThat(verdict.violations().get(0).witness()).filteredOn(line -> line.contains("UNEXPLAINED")).hasSize(1);
    }

    /**
     * Found by the nemesis through the proxy on memory (seed 198288498605183, 90 s): a clock jump expired a
     * reservation whose holder ran on for 5 s; the key stayed free until that holder completed it as it
     * answered, and a caller sent 3.1 s after the jump took it. The jump's effect reached it.
     */
    @Test
    void aClockJumpReachesEveryCallerUntilTheHolderItExpiredCompletes() {
        HandBuiltHistory history = new HandBuiltHistory("memory").fault(FaultKind.CLOCK_JUMP, 88_728, 89_227);
        history.holder(KEY, 88_321, 88_321, 93_400, Outcome.EXECUTED);
        history.holder(KEY, 92_334, 92_334, 95_582, Outcome.EXECUTED);

        NemesisVerdict verdict = history.check();

        assertThat(verdict.violations()).isEmpty();
        assertThat(verdict.explanations()).containsEntry("store promise broken on purpose (clock-jump)", 1);
    }

    /**
     * Found through the HTTP filter on memory, on a loaded machine (seed 119130123973849): the holder with
     * fence 907 reserved first, then waited 2 s for a thread before its action began; a clock jump expired
     * its reservation meanwhile and the caller with fence 941 took the key and charged first. The fences,
     * not the actions' starts, say whose reservation the jump lost.
     */
    @Test
    void theFencesSayWhoseReservationAJumpLostWhateverTheActionsOrder() {
        HandBuiltHistory history = new HandBuiltHistory("memory").fault(FaultKind.CLOCK_JUMP, 17_251, 19_721);
        CallRecord first = history.holder(KEY, 15_688, 17_625, 18_889, Outcome.LEASE_LOST);
        CallRecord taker = history.holder(KEY, 15_236, 17_502, 19_616, Outcome.EXECUTED);
        first.actionStarted(HandBuiltHistory.ms(17_625), 907);
        taker.actionStarted(HandBuiltHistory.ms(17_502), 941);

        NemesisVerdict verdict = history.check();

        assertThat(verdict.violations()).isEmpty();
        assertThat(verdict.explanations()).containsEntry("store promise broken on purpose (clock-jump)", 1);
    }

    /**
     * Found through the HTTP filter on memory (seed 23724512574490): the holder's client gave up at 56.6 s,
     * but the holder went on with its action on the server; a jump at 58.9 s expired its reservation and a
     * retry took the key. A caller that stopped listening says nothing of when its attempt ended.
     */
    @Test
    void aHolderWhoseClientGaveUpStillHeldWhatAJumpExpired() {
        HandBuiltHistory history = new HandBuiltHistory("memory").fault(FaultKind.CLOCK_JUMP, 58_875, 60_201);
        CallRecord holder = history.holder(KEY, 56_161, 56_162, 56_573, Outcome.EXECUTED);
        holder.failed(HandBuiltHistory.ms(56_573), "client-gave-up");
        history.holder(KEY, 57_247, 58_998, 59_149, Outcome.EXECUTED);

        assertThat(history.check().violations()).isEmpty();
    }

    /**
     * Found through the proxy on memory (seed 4605523169273348502, 3 s): a jump expired the reservation of
     * a holder that charged; a caller took the key in the jump, so the holder's complete stored nothing,
     * and that caller's own action failed 4.6 s later and released the key. A retry sent after that took
     * the free key and charged: the jump's loss reached it through the taker that let go.
     */
    @Test
    void aJumpsLossReachesOnThroughATakerThatFailedAndLetGo() {
        HandBuiltHistory history = aJumpThenATakerThatLetGo(Through.PROXY, 2_866);

        NemesisVerdict verdict = history.check();

        assertThat(verdict.violations()).isEmpty();
        assertThat(verdict.explanations()).containsEntry("store promise broken on purpose (clock-jump)", 1);
    }

    /** The same loss, reached through the taker that let go, explains one of the two charges after it, not both. */
    @Test
    void aJumpsLossReachedThroughATakerThatLetGoStillExplainsOneCharge() {
        HandBuiltHistory history = aJumpThenATakerThatLetGo(Through.PROXY, 2_866);
        history.holder(KEY, 8_500, 8_501, 8_600, Outcome.EXECUTED);

        NemesisVerdict verdict = history.check();

        assertThat(verdict.violations()).extracting(Violation::rule).containsExactly("duplicate-charge");
        assertThat(verdict.violations().get(0).witness()).filteredOn(line -> line.contains("UNEXPLAINED")).hasSize(1);
    }

    /**
     * The same history straight to the coordinator, whose EXECUTED says the holder's complete was kept: no
     * taker held the key through it, so a key freed later was freed by a release that was not the taker's
     * to make. Caught.
     */
    @Test
    void theCoordinatorsWordThatTheCompleteWasKeptEndsTheChain() {
        HandBuiltHistory history = aJumpThenATakerThatLetGo(Through.COORDINATOR, 2_866);

        assertThat(history.check().violations()).extracting(Violation::rule).containsExactly("duplicate-charge");
    }

    /** A taker that began after the holder answered did not hold the key through the holder's complete: no chain. */
    @Test
    void aTakerThatBeganAfterTheHolderAnsweredExtendsNothing() {
        HandBuiltHistory history = aJumpThenATakerThatLetGo(Through.PROXY, 3_400);

        assertThat(history.check().violations()).extracting(Violation::rule).containsExactly("duplicate-charge");
    }

    /** A taker that let go of the key long after the jump, but had not taken it in the jump's reach, extends nothing. */
    @Test
    void aTakerSentOutsideTheJumpsReachExtendsNothing() {
        HandBuiltHistory history = new HandBuiltHistory("memory").through(Through.PROXY)
                .fault(FaultKind.CLOCK_JUMP, 1_000, 1_100);
        history.holder(KEY, 0, 0, 1_500, Outcome.EXECUTED);
        history.holderThatFailed(KEY, 9_000, 9_001, 12_000);
        history.holder(KEY, 12_500, 12_501, 12_600, Outcome.EXECUTED);

        assertThat(history.check().violations()).extracting(Violation::rule).containsExactly("duplicate-charge");
    }

    /**
     * The history of seed 4605523169273348502's key 63, through {@code layer}: a holder charges across a
     * jump; a taker sent at {@code takerSentAt} takes the key, fails 4.6 s later and lets go of it; a
     * retry charges after that.
     */
    private static HandBuiltHistory aJumpThenATakerThatLetGo(Through layer, long takerSentAt) {
        HandBuiltHistory history = new HandBuiltHistory("memory").through(layer).fault(FaultKind.CLOCK_JUMP, 2_866, 3_686);
        history.holder(KEY, 2_787, 2_787, 3_252, Outcome.EXECUTED);
        history.holderThatFailed(KEY, takerSentAt, takerSentAt + 1, 7_514);
        history.holder(KEY, 8_086, 8_087, 8_088, Outcome.EXECUTED);
        return history;
    }

    @Test
    void aClockJumpFarFromTheChargeExplainsNothing() {
        HandBuiltHistory history = new HandBuiltHistory("memory").fault(FaultKind.CLOCK_JUMP, 1000, 1100);
        history.holder(KEY, 0, 0, 2000, Outcome.EXECUTED);
        history.holder(KEY, 8000, 8000, 8100, Outcome.EXECUTED);

        assertThat(history.check().violations()).extracting(Violation::rule).containsExactly("duplicate-charge");
    }

    @Test
    void aRequestWithAnotherAmountAnsweredWithTheStoredChargeIsCaught() {
        HandBuiltHistory history = new HandBuiltHistory("redis");
        CallRecord first = history.holder(KEY, 0, 0, 100, Outcome.EXECUTED);
        CallRecord reuse = history.replay(KEY, 500, 510, first.chargeId());
        reuse.asks(first.amount() + 1);

        assertThat(history.check().violations()).extracting(Violation::rule)
                .containsExactly("answer-of-another-request");
    }

    @Test
    void aFenceHandedOutTwiceOrBackwardsIsCaught() {
        HandBuiltHistory history = new HandBuiltHistory("redis");
        CallRecord first = history.holder(KEY, 0, 0, 100, Outcome.EXECUTED);
        CallRecord again = history.holder(2, 0, 0, 100, Outcome.EXECUTED);
        // Two calls of key 2 with one fence: a store that lost its counter and handed it out again.
        CallRecord repeated = history.holder(2, 200, 200, 300, Outcome.EXECUTED);
        repeated.actionStarted(HandBuiltHistory.ms(200), again.fence());

        NemesisVerdict verdict = history.check();

        assertThat(verdict.violations()).extracting(Violation::rule).contains("fence-repeated");
        assertThat(first.fence()).isPositive();
    }
}
