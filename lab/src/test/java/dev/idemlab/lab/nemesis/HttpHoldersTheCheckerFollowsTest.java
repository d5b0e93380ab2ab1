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

    private static HandBuiltHistory faults() {
        return new HandBuiltHistory("postgres").fault(FaultKind.RESET, 22_438, 22_457)
                .fault(FaultKind.FREEZE, 27_345, 29_802).fault(FaultKind.RESET, 31_312, 31_314);
    }
}
