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

    /**
     * Found through HTTP on PostgreSQL with the machine's load at 26 on 2 cores (seed 46405315697995): a call
     * answered 1.1 s past its bound while the run's watch saw the store and the machine stall. The bound counts
     * what the coordinator may spend; the stalls seen while the call was out (their union: two probes see one
     * stall twice) come on top. A call that outlives both still breaks it.
     */
    @Test
    void aCallsBoundStretchesByTheStallsSeenWhileItWasOut() {
        CallRecord slow = new CallRecord(1, 1, 1, false, InFlightPolicy.WAIT, StoreFailureMode.FAIL_CLOSED,
                TimeUnit.SECONDS.toNanos(10));
        slow.sent(ms(1000));
        slow.answered(ms(12_000), null, Outcome.IN_PROGRESS); // 11 s: 1 s past its bound
        List<StallWatch.Stall> overlapping = List.of(new StallWatch.Stall(ms(2000), ms(3000)),
                new StallWatch.Stall(ms(2100), ms(3100)), new StallWatch.Stall(ms(20_000), ms(25_000)));
        List<StallWatch.Stall> short_ = List.of(new StallWatch.Stall(ms(2000), ms(2400)),
                new StallWatch.Stall(ms(2100), ms(2500)));

        assertThat(rules(NemesisChecker.check(alone(slow, overlapping)))).doesNotContain("outlived-bound");
        assertThat(rules(NemesisChecker.check(alone(slow, short_)))).contains("outlived-bound");
        assertThat(rules(NemesisChecker.check(alone(slow, List.of())))).contains("outlived-bound");
    }

    private static NemesisHistory alone(CallRecord call, List<StallWatch.Stall> stalls) {
        return new NemesisHistory(new NemesisSettings(1, Duration.ofSeconds(10), Duration.ofNanos(LEASE), false,
                Sabotage.NONE), new ServerInfo("postgres", "test", Origin.BUNDLED, "127.0.0.1:0", "none"),
                List.of(call), List.of(), List.of(), ms(30_000), NemesisHistory.sum(List.of()), stalls);
    }

    private static List<String> rules(NemesisVerdict verdict) {
        return verdict.violations().stream().map(Violation::rule).toList();
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
