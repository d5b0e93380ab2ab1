package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.StoreFailureMode;
import dev.idemlab.lab.faults.FaultKind;
import dev.idemlab.lab.infra.Origin;
import dev.idemlab.lab.infra.ServerInfo;
import dev.idemlab.lab.load.LoadKeys;
import dev.idemlab.provider.Charge;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When the checker lets a second holder's run stand: only when the takeover came a lease after the
 * first holder's last renewal that no fault can have kept out. Histories built by hand, one key, a 3 s lease (beats a second
 * apart): a holder from 0 s whose action runs on, a second holder that runs the action at 4.1 s.
 */
class TakeoversTheCheckerExplainsTest {

    private static final long LEASE = TimeUnit.SECONDS.toNanos(3);
    private static final long TAKEN_AT = ms(4100);

    @Test
    void aFaultThatBeganBetweenTwoBeatsAndOutlastedTheLeaseLeftNoChance() {
        // The beat at 1.0 s renewed to 4.0 s; the freeze from 1.9 s held every renewal until 4.0 s
        // (the calm before it, 0.8 s, holds no beat), so the lease ended under the live holder.
        NemesisVerdict verdict = NemesisChecker.check(history(fault(FaultKind.FREEZE, 1900, 4000)));

        assertThat(verdict.violations()).isEmpty();
        assertThat(verdict.explanations()).containsEntry("key taken over after a lease of outage", 1);
    }

    @Test
    void aCalmLongEnoughForABeatIsAChanceTheHolderHadToRenew() {
        // From 1.1 s to 2.6 s nothing was wrong: a beat fell in it, and its renewal would have kept the key.
        NemesisVerdict verdict = NemesisChecker.check(history(fault(FaultKind.FREEZE, 2600, 4000)));

        assertThat(verdict.violations()).extracting(Violation::rule).containsExactly("duplicate-charge");
    }

    @Test
    void aCalmAfterAFaultLongEnoughForTheRetryOfAFailedRenewalIsAChanceToo() {
        // The freeze from 1.1 s may have held the renewal of the beat at 1.0 s; a second after it ended (the
        // recovery the checker allows), 0.8 s of calm came before the next fault: room for that renewal's
        // retry, inside the reserve's lease. It kept the key to about 4.15 s: a takeover at 3.9 s is caught.
        NemesisVerdict verdict = NemesisChecker.check(history(ms(3900), fault(FaultKind.FREEZE, 1100, 1150),
                fault(FaultKind.PAUSE_ALL, 2950, 3900)));

        assertThat(verdict.violations()).extracting(Violation::rule).containsExactly("duplicate-charge");
    }

    /**
     * The holder's first beat, at 1.0 s, fell in a calm that lasted until the freeze at 2.1 s: that
     * renewal kept the key to about 4.0 s, so a takeover at 3.9 s is the coordinator's fault, although
     * the calm (1.1 s) is shorter than an interval and a slack.
     */
    @Test
    void aBeatInACalmShorterThanAnIntervalIsStillAChance() {
        NemesisVerdict verdict = NemesisChecker.check(history(ms(3900), fault(FaultKind.FREEZE, 2100, 3900)));

        assertThat(verdict.violations()).extracting(Violation::rule).containsExactly("duplicate-charge");
    }

    /**
     * Found by the nemesis on PostgreSQL: the holder's reserve waited out a freeze (sent at 0 s, its
     * action from 0.633 s), so it renewed within a third of the lease that reserve had left, at about
     * 1.42 s and 2.42 s, not an interval after its action began. Replies were dropped from 3.06 s to
     * 5.46 s; the renewal of 2.42 s kept the key to 5.42 s only, and a takeover at 5.62 s had no
     * renewal to stop it. Renewing from the action's start, the checker had put a beat at 2.63 s and
     * called it the coordinator's fault.
     */
    @Test
    void aHolderWhoseReserveTookAWhileRenewedSoonerAndItsLeaseEndedSooner() {
        CallRecord first = call(1, 0, ms(633), ms(9000), "ch_1", Outcome.LEASE_LOST);
        NemesisVerdict verdict = NemesisChecker.check(history(first, ms(5618), fault(FaultKind.FREEZE, 64, 580),
                fault(FaultKind.DROP_REPLIES, 3062, 5461)));

        assertThat(verdict.violations()).isEmpty();
        assertThat(verdict.explanations()).containsEntry("key taken over after a lease of outage", 1);
    }

    /** The same holder, the takeover before a lease after its renewal of 2.42 s: nothing explains it. */
    @Test
    void aTakeoverBeforeTheSoonerRenewalsLeaseEndedIsStillCaught() {
        CallRecord first = call(1, 0, ms(633), ms(9000), "ch_1", Outcome.LEASE_LOST);
        NemesisVerdict verdict = NemesisChecker.check(history(first, ms(5300), fault(FaultKind.FREEZE, 64, 580),
                fault(FaultKind.DROP_REPLIES, 3062, 5461)));

        assertThat(verdict.violations()).extracting(Violation::rule).containsExactly("duplicate-charge");
    }

    /**
     * Found by the nemesis on PostgreSQL: the holder's reserve (sent at 2.0 s) waited on a locked table
     * until 3.14 s, and its lease counted from the statement's start, by the server's {@code now()};
     * faults then held every renewal until 6.04 s. A takeover at 6.1 s came less than a lease after the
     * holder's action began, but more than one after its reserve was sent: the lease had ended.
     */
    @Test
    void aReserveThatWaitedOnALockHeldTheKeyFromWhenItWasSent() {
        CallRecord first = call(1, ms(2000), ms(3160), ms(9000), "ch_1", Outcome.LEASE_LOST);
        NemesisVerdict verdict = NemesisChecker.check(history(first, ms(6106), fault(FaultKind.LOCK_TABLE, 879, 3141),
                fault(FaultKind.LOCK_TABLE, 3141, 3747), fault(FaultKind.FREEZE, 3747, 6037)));

        assertThat(verdict.violations()).isEmpty();
        assertThat(verdict.explanations()).containsEntry("key taken over after a lease of outage", 1);
    }

    /** The same holder, taken over before a lease after its reserve was sent: nothing explains it. */
    @Test
    void aTakeoverWithinALeaseOfTheReserveIsStillCaught() {
        CallRecord first = call(1, ms(2000), ms(3160), ms(9000), "ch_1", Outcome.LEASE_LOST);
        NemesisVerdict verdict = NemesisChecker.check(history(first, ms(4900), fault(FaultKind.LOCK_TABLE, 879, 3141),
                fault(FaultKind.LOCK_TABLE, 3141, 3747), fault(FaultKind.FREEZE, 3747, 6037)));

        assertThat(verdict.violations()).extracting(Violation::rule).containsExactly("duplicate-charge");
    }

    /**
     * Found by the nemesis on the cluster: the holder answered at 1.0 s, its complete left to the
     * background while connections were killed; the settle, and the renewals beside it, had a lease to
     * get through, and faults covered it but for short calms. It gave up, the marker's lease ended, and
     * a retry at 6.0 s ran the action: the calm from 4.0 s on came after the holder had stopped renewing.
     */
    @Test
    void aHolderThatAnsweredRenewedOnlyWhileItsCompleteWasSettled() {
        CallRecord first = call(1, 0, 0, ms(1000), "ch_1", Outcome.EXECUTED);
        NemesisVerdict verdict = NemesisChecker.check(history(first, ms(6000), fault(FaultKind.KILL_CONNECTIONS, 300, 1000),
                fault(FaultKind.PAUSE_ALL, 2300, 3000)));

        assertThat(verdict.violations()).isEmpty();
        assertThat(verdict.explanations()).containsEntry("key taken over after a lease of outage", 1);
    }

    /** The same holder with a calm long enough for its settle inside that lease: the takeover is caught. */
    @Test
    void aHolderThatAnsweredAndHadACalmToSettleInIsStillCaught() {
        CallRecord first = call(1, 0, 0, ms(1000), "ch_1", Outcome.EXECUTED);
        NemesisVerdict verdict = NemesisChecker.check(history(first, ms(6000),
                fault(FaultKind.KILL_CONNECTIONS, 300, 1000)));

        assertThat(verdict.violations()).extracting(Violation::rule).containsExactly("duplicate-charge");
    }

    /**
     * A reserve cannot land before it was sent: sent at 0.995 s, its action from 1.0 s, the lease holds
     * to 3.995 s at least, whatever the faults. A takeover at 3.71 s is the coordinator's fault.
     */
    @Test
    void aTakeoverBeforeALeaseAfterTheReserveWasSentIsCaughtWhenNoRenewalIsSure() {
        CallRecord first = call(1, ms(995), ms(1000), ms(9000), "ch_1", Outcome.LEASE_LOST);
        NemesisVerdict verdict = NemesisChecker.check(history(first, ms(3710), fault(FaultKind.FREEZE, 1900, 4000)));

        assertThat(verdict.violations()).extracting(Violation::rule).containsExactly("duplicate-charge");
    }

    /**
     * The holder's complete landed as it answered at 1.95 s (no fault was near), and only then did the
     * connections go for a lease: the key was completed, and a run at 4.0 s has nothing to excuse it.
     */
    @Test
    void aHolderWhoseCompleteLandedAsItAnsweredLeftNothingToTakeOver() {
        CallRecord first = call(1, 0, 0, ms(1950), "ch_1", Outcome.EXECUTED);
        NemesisVerdict verdict = NemesisChecker.check(history(first, ms(4000),
                fault(FaultKind.KILL_CONNECTIONS, 2000, 4400)));

        assertThat(verdict.violations()).extracting(Violation::rule).containsExactly("duplicate-charge");
    }

    /**
     * Found by the nemesis on PostgreSQL: a freeze from 0.5 s to 2.7 s held the holder's beats at 1.0 s
     * and 2.0 s, so its lease ran out at 3.0 s, a second after the freeze ended and before any renewal
     * was sure to get through. The renewals of the calm that followed were refused (its lease was over
     * by the server's clock), and a takeover at 4.6 s was honest; counting them, the checker had kept
     * the lease to 6.7 s and called it the coordinator's fault.
     */
    @Test
    void aRenewalAfterTheLeaseRanOutDoesNotBringTheKeyBack() {
        NemesisVerdict verdict = NemesisChecker.check(history(ms(4600), fault(FaultKind.FREEZE, 500, 2700)));

        assertThat(verdict.violations()).isEmpty();
        assertThat(verdict.explanations()).containsEntry("key taken over after a lease of outage", 1);
    }

    /**
     * A shorter freeze, from 0.3 s to 0.8 s: the retry of the renewal it failed was sure to get through
     * by 2.55 s, inside the lease of the reserve, and the beats after it kept the key: a takeover at
     * 4.6 s is the coordinator's fault.
     */
    @Test
    void aRenewalThatGotThroughBeforeTheLeaseRanOutKeepsTheChain() {
        NemesisVerdict verdict = NemesisChecker.check(history(ms(4600), fault(FaultKind.FREEZE, 300, 800)));

        assertThat(verdict.violations()).extracting(Violation::rule).containsExactly("duplicate-charge");
    }

    private static FaultEvent fault(FaultKind kind, long fromMillis, long toMillis) {
        return new FaultEvent(kind, ms(fromMillis), ms(toMillis), null);
    }

    /** The two holders of key 1 under {@code faults}: the first still in its action when the second ran. */
    private static NemesisHistory history(FaultEvent... faults) {
        return history(TAKEN_AT, faults);
    }

    /** As {@link #history(FaultEvent...)}, the second holder running the action at {@code takenAt}. */
    private static NemesisHistory history(long takenAt, FaultEvent... faults) {
        return history(call(1, ms(0), ms(6000), "ch_1", Outcome.LEASE_LOST), takenAt, faults);
    }

    /** The holder {@code first} of key 1 and a second holder running the action at {@code takenAt}. */
    private static NemesisHistory history(CallRecord first, long takenAt, FaultEvent... faults) {
        CallRecord second = call(2, takenAt, takenAt + ms(20), "ch_2", Outcome.EXECUTED);
        List<Charge> ledger = List.of(charge("ch_1"), charge("ch_2"));
        return new NemesisHistory(new NemesisSettings(1, Duration.ofSeconds(10), Duration.ofNanos(LEASE), false,
                Sabotage.NONE), new ServerInfo("redis", "test", Origin.BUNDLED, "127.0.0.1:0", "none"),
                List.of(first, second), List.of(faults), ledger, ms(7000),
                NemesisHistory.sum(List.of()));
    }

    private static CallRecord call(int id, long actionAt, long answeredAt, String charge, Outcome outcome) {
        return call(id, actionAt, actionAt, answeredAt, charge, outcome);
    }

    private static CallRecord call(int id, long sentAt, long actionAt, long answeredAt, String charge,
                                   Outcome outcome) {
        CallRecord call = new CallRecord(id, 1, id, false, InFlightPolicy.WAIT, StoreFailureMode.FAIL_CLOSED,
                TimeUnit.SECONDS.toNanos(60));
        call.sent(sentAt);
        call.actionStarted(actionAt, true);
        call.charged(charge);
        call.answered(answeredAt, charge, outcome);
        return call;
    }

    private static Charge charge(String id) {
        return new Charge(id, LoadKeys.orderId(1), LoadKeys.amount(1), null);
    }

    private static long ms(long millis) {
        return TimeUnit.MILLISECONDS.toNanos(millis);
    }
}
