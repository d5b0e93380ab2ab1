package dev.idemlab.lab.nemesis;

import dev.idemlab.lab.faults.FaultKind;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A call's bound counts what the library may spend on it; a server that cannot answer at all comes on top.
 * Through the sample, a pause of its JVM (SIGSTOP past the lease) or a kill and restart stops every request
 * it holds, whichever key holds them, so those seconds stretch every bound they overlap, as a stall the run's
 * watch saw does. Straight to the coordinator a child holder's pause stops that child only. Histories built
 * by hand (each call's bound is 60 s), after the page of 3e6718c: 708 requests through the sample on
 * PostgreSQL given up on at their bound, in a run whose sample JVM was paused.
 */
class BoundsAroundThePausedSampleTest {

    private static final int KEY = 7;

    @Test
    void aPauseOfTheSamplesJvmStretchesTheBoundOfACallItHeld() {
        HandBuiltHistory history = slowCall(new HandBuiltHistory("postgres").through(Through.SAMPLE)
                .fault(FaultKind.PAUSE_HOLDER, 10_000, 14_000));

        assertThat(history.check().violations()).extracting(Violation::rule).doesNotContain("outlived-bound");
    }

    @Test
    void aCallThatOutlivesTheBoundAndThePauseIsStillFlagged() {
        HandBuiltHistory history = new HandBuiltHistory("postgres").through(Through.SAMPLE)
                .fault(FaultKind.PAUSE_HOLDER, 10_000, 11_000);
        history.holderThatFailed(KEY, 0, 100, 62_500);

        assertThat(history.check().violations()).extracting(Violation::rule).contains("outlived-bound");
    }

    @Test
    void straightToTheCoordinatorAChildHoldersPauseStretchesNoOtherCallsBound() {
        HandBuiltHistory history = slowCall(new HandBuiltHistory("postgres")
                .fault(FaultKind.PAUSE_HOLDER, 10_000, 14_000));

        assertThat(history.check().violations()).extracting(Violation::rule).contains("outlived-bound");
    }

    /** A call that answered 63 s after it was sent, 3 s past its bound. */
    private static HandBuiltHistory slowCall(HandBuiltHistory history) {
        history.holderThatFailed(KEY, 0, 100, 63_000);
        return history;
    }
}
