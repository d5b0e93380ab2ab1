package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.StoreFailureMode;
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
 * A call that failed open while nothing was injected: the checker lets it stand only where the run's
 * stall watch saw the store (or the machine) stall. Found by the 30-minute runs, four stores at once on
 * two cores: the first minute, all of them starting, timed store calls out with no fault on, and the
 * checker called each fail-open it caused a violation; the same seed alone found none.
 */
class StallsTheCheckerCountsTest {

    private static final long LEASE = TimeUnit.SECONDS.toNanos(3);

    @Test
    void aFailOpenInAStallTheWatchSawIsExplained() {
        NemesisVerdict verdict = NemesisChecker.check(history(List.of(new StallWatch.Stall(ms(4900), ms(5400)))));

        assertThat(verdict.violations()).isEmpty();
        assertThat(verdict.explanations()).containsEntry("counted fail-open in an observed stall", 1);
    }

    @Test
    void aFailOpenWithNoFaultAndNoStallIsStillAViolation() {
        NemesisVerdict verdict = NemesisChecker.check(history(List.of()));

        assertThat(verdict.violations()).extracting(Violation::rule).containsExactly("duplicate-charge");
    }

    @Test
    void aStallLongBeforeTheFailOpenExplainsNothing() {
        // It ended (with the second of recovery the checker allows) long before the call's aftermath began.
        NemesisVerdict verdict = NemesisChecker.check(history(List.of(new StallWatch.Stall(ms(100), ms(200)))));

        assertThat(verdict.violations()).extracting(Violation::rule).containsExactly("duplicate-charge");
    }

    /** Found in review: stalls were kept on the machine's clock, calls and faults on the run's, so none ever overlapped. */
    @Test
    void theWatchKeepsStallsOnTheRunsClock() {
        long runStart = System.nanoTime() - ms(10_000);
        try (StallWatch watch = StallWatch.start(new dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore(),
                runStart)) {
            watch.record(runStart + ms(5000), runStart + ms(5400));
            assertThat(watch.stop()).contains(new StallWatch.Stall(ms(5000), ms(5400)));
        }
    }

    /** Key 1: a holder that ran and answered at once, then, at 5.0 s, a call that failed open and charged again. */
    private static NemesisHistory history(List<StallWatch.Stall> stalls) {
        CallRecord first = call(1, 0, 0, ms(20), "ch_1", Outcome.EXECUTED, true);
        CallRecord second = call(2, ms(5000), ms(5500), ms(5510), "ch_2", Outcome.FAILED_OPEN, false);
        List<Charge> ledger = List.of(charge("ch_1"), charge("ch_2"));
        return new NemesisHistory(new NemesisSettings(1, Duration.ofSeconds(10), Duration.ofNanos(LEASE), false,
                Sabotage.NONE), new ServerInfo("postgres", "test", Origin.BUNDLED, "127.0.0.1:0", "none"),
                List.of(first, second), List.of(), ledger, ms(7000), NemesisHistory.sum(List.of()), stalls);
    }

    private static CallRecord call(int id, long sentAt, long actionAt, long answeredAt, String charge, Outcome outcome,
                                   boolean fenced) {
        CallRecord call = new CallRecord(id, 1, id, false, InFlightPolicy.WAIT, StoreFailureMode.FAIL_OPEN,
                TimeUnit.SECONDS.toNanos(60));
        call.sent(sentAt);
        call.actionStarted(actionAt, fenced);
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
