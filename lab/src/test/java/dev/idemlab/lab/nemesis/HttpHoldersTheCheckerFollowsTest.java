package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.Outcome;
import dev.idemlab.lab.faults.FaultKind;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Over HTTP a client that gives up does not stop its request: the server's attempt goes on, charges,
 * and settles when it is done. The checker reads that attempt's end as the server recorded it, not the
 * moment the client stopped listening. Histories built by hand on PostgreSQL, one key, a 3 s lease,
 * after the nemesis's run through HTTP with seed 250034963178845 (key 990571).
 */
class HttpHoldersTheCheckerFollowsTest {

    private static final int KEY = 990_571;

    /**
     * The holder reserved at 25.7 s, its client gave up at 26.8 s, and its attempt ended on the server at
     * 28.0 s, inside a freeze of 27.3 s to 29.8 s that kept its complete and its renewals out: its lease
     * ran out under the freeze, and a retry took the key over at 31.6 s. Reading the client's give-up as
     * the attempt's end (a complete landed then, with no fault near), the checker called it unexplained.
     */
    @Test
    void aTakeoverAfterAHolderWhoseClientGaveUpAndWhoseAttemptEndedInAFreezeIsExplained() {
        HandBuiltHistory history = faults();
        CallRecord holder = history.holder(KEY, 23_753, 25_738, 26_776, Outcome.EXECUTED);
        holder.failed(HandBuiltHistory.ms(26_776), "client-gave-up");
        holder.attemptEnded(HandBuiltHistory.ms(28_000));
        history.holder(KEY, 24_331, 31_553, 33_604, Outcome.EXECUTED);

        NemesisVerdict verdict = history.check();

        assertThat(verdict.violations()).isEmpty();
        assertThat(verdict.explanations()).containsEntry("key taken over after a lease of outage", 1);
    }

    /**
     * The same, but the server's attempt ended at 27.0 s, in the calm before the freeze: its complete
     * landed, nothing was left to take over, and the second charge is the coordinator's fault.
     */
    @Test
    void aTakeoverAfterAHolderWhoseAttemptEndedInACalmIsStillCaught() {
        HandBuiltHistory history = faults();
        CallRecord holder = history.holder(KEY, 23_753, 25_738, 26_776, Outcome.EXECUTED);
        holder.failed(HandBuiltHistory.ms(26_776), "client-gave-up");
        holder.attemptEnded(HandBuiltHistory.ms(27_000));
        history.holder(KEY, 24_331, 31_553, 33_604, Outcome.EXECUTED);

        assertThat(history.check().violations()).extracting(Violation::rule).containsExactly("duplicate-charge");
    }

    /**
     * Through the Spring Boot sample, whose server does not say when an attempt ended (seed 179835420777936,
     * key 70): the holder's client gave up 0.2 s after it sent, before the action even began; the attempt
     * went on, charged, and lost its lease under a stop of the store's backends longer than the lease; a
     * retry took the key after it. The give-up says nothing of when the attempt ended, so nothing settled
     * the key then: the checker took it for an answer with no fault near and called the takeover unexplained.
     */
    @Test
    void aHolderWhoseClientGaveUpAndWhoseServerSaysNothingHeldTheKeyAsLongAsItsLeaseCouldLast() {
        HandBuiltHistory history = gaveUp(new HandBuiltHistory("postgres").through(Through.SAMPLE)
                .fault(FaultKind.STOP_BACKENDS, 17_500, 21_000));

        NemesisVerdict verdict = history.check();

        assertThat(verdict.violations()).isEmpty();
        assertThat(verdict.explanations()).containsEntry("key taken over after a lease of outage", 1);
    }

    /** The same holder with no fault of the store: its renewals held the key, and a second charge is caught. */
    @Test
    void aHolderWhoseClientGaveUpStillRenewedInTheCalm() {
        HandBuiltHistory history = gaveUp(new HandBuiltHistory("postgres").through(Through.SAMPLE));

        assertThat(history.check().violations()).extracting(Violation::rule).containsExactly("duplicate-charge");
    }

    /** Sample calls dated by their charges (bounded starts); the holder's client gave up 0.2 s after it sent. */
    private static HandBuiltHistory gaveUp(HandBuiltHistory history) {
        history.holderWhoseClientGaveUp(KEY, 10_000, 17_000, 10_200);
        CallRecord taker = history.holder(KEY, 10_100, 21_500, 22_000, Outcome.EXECUTED);
        taker.actionStartedBy(HandBuiltHistory.ms(21_500), true);
        return history;
    }

    /**
     * Through the sample (seed 179835420777936, key 221): the holder's charge reached the provider at 27.4 s,
     * 12.7 s after it was sent, its order's insert held up by the faults before; the sample answered 201 at
     * 29.5 s, with no fault near, and a waiting retry took the key 0.2 s later. The 201 is the sample's
     * answer whether or not its complete was kept: a lease that may have run out before it (a stop of the
     * backends outlasted it while the holder held the key) left its complete refused and the key free.
     */
    @Test
    void aHolderWhoseLeaseMayHaveRunOutBeforeItsAnswerSettledNothingAsItAnswered() {
        HandBuiltHistory history = keyTwoTwentyOne(Through.SAMPLE);

        NemesisVerdict verdict = history.check();

        assertThat(verdict.violations()).isEmpty();
        assertThat(verdict.explanations()).containsEntry("key taken over after a lease of outage", 1);
    }

    /** The same history straight to the coordinator, whose EXECUTED says the complete was kept: a planted double charge. */
    @Test
    void theCoordinatorsExecutedSaysTheCompleteWasKept() {
        HandBuiltHistory history = keyTwoTwentyOne(Through.COORDINATOR);

        assertThat(history.check().violations()).extracting(Violation::rule).containsExactly("duplicate-charge");
    }

    /**
     * Through the sample with no fault at all: the holder's charge reached the provider 3.6 s after it was
     * sent, so its reserve may have landed at once or just before; for every such moment its heartbeat kept
     * the lease until its answer, and the retry's charge 0.3 s after that answer is caught.
     */
    @Test
    void aBoundedStartWithNoFaultNearExcusesNothing() {
        HandBuiltHistory history = new HandBuiltHistory("postgres").through(Through.SAMPLE);
        CallRecord holder = history.holder(KEY, 10_000, 13_600, 13_700, Outcome.EXECUTED);
        holder.actionStartedBy(HandBuiltHistory.ms(13_600), true);
        CallRecord taker = history.holder(KEY, 10_050, 14_000, 14_100, Outcome.EXECUTED);
        taker.actionStartedBy(HandBuiltHistory.ms(14_000), true);

        assertThat(history.check().violations()).extracting(Violation::rule).containsExactly("duplicate-charge");
    }

    /** Through the sample, a holder that renewed surely until its answer had its complete kept: a retry's charge is caught. */
    @Test
    void aHolderWhoseLeaseHeldUntilItsAnswerSettledTheKeyEvenThroughTheSample() {
        HandBuiltHistory history = new HandBuiltHistory("postgres").through(Through.SAMPLE);
        history.holder(KEY, 25_000, 25_100, 29_503, Outcome.EXECUTED);
        history.holder(KEY, 25_050, 29_735, 31_869, Outcome.EXECUTED);

        assertThat(history.check().violations()).extracting(Violation::rule).containsExactly("duplicate-charge");
    }

    private static HandBuiltHistory keyTwoTwentyOne(Through layer) {
        HandBuiltHistory history = new HandBuiltHistory("postgres").through(layer)
                .fault(FaultKind.STOP_BACKENDS, 17_193, 19_641).fault(FaultKind.RESET, 26_304, 26_310);
        CallRecord holder = history.holder(KEY, 14_733, 27_401, 29_503, Outcome.EXECUTED);
        holder.actionStartedBy(HandBuiltHistory.ms(27_401), true);
        CallRecord taker = history.holder(KEY, 14_793, 29_735, 31_869, Outcome.EXECUTED);
        taker.actionStartedBy(HandBuiltHistory.ms(29_735), true);
        return history;
    }

    private static HandBuiltHistory faults() {
        return new HandBuiltHistory("postgres").fault(FaultKind.RESET, 22_438, 22_457)
                .fault(FaultKind.FREEZE, 27_345, 29_802).fault(FaultKind.RESET, 31_312, 31_314);
    }
}
