package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.IdempotencyStats;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.StoreFailureMode;
import dev.idemlab.idempotency.StorePhase;
import dev.idemlab.lab.faults.FaultKind;
import dev.idemlab.lab.infra.Origin;
import dev.idemlab.lab.infra.ServerInfo;
import dev.idemlab.lab.load.LoadKeys;
import dev.idemlab.provider.Charge;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.EnumMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The checker on a key a holder in a child JVM held: the child reserved, was stopped past its lease, a
 * retry took the key and charged, and the child charged as it resumed. Only the holder fault on that
 * very key explains the second charge; without it, or with it on another key, the key is flagged.
 */
class HolderFaultCheckerTest {

    private static final int KEY = 7;
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    @Test
    void aPausedHoldersSecondChargeIsExplainedByItsFault() {
        NemesisVerdict verdict = NemesisChecker.check(history(List.of(
                new FaultEvent(FaultKind.PAUSE_HOLDER, 1 * SECOND, 9 * SECOND, null, KEY))));
        assertThat(verdict.violations()).isEmpty();
        assertThat(verdict.explanations()).containsEntry(Explanation.HOLDER_PAUSED.named(), 1);
    }

    @Test
    void aHolderKilledAfterItsChargeExplainsTheRetrysCharge() {
        CallRecord child = killedChild("ch_1");
        CallRecord retry = retry("ch_2");
        NemesisVerdict verdict = NemesisChecker.check(history(List.of(child, retry), List.of(
                new FaultEvent(FaultKind.KILL_HOLDER, 1 * SECOND, 2 * SECOND, null, KEY))));
        assertThat(verdict.violations()).isEmpty();
        assertThat(verdict.explanations()).containsEntry(Explanation.HOLDER_KILLED.named(), 1);
    }

    /**
     * Killed before it charged, the child ran nothing: the two charges are two of its retries', a double
     * charge of the coordinator's that the kill does not explain.
     */
    @Test
    void aHolderKilledBeforeItChargedExplainsNoSecondChargeOfItsRetries() {
        CallRecord child = killedChild(null);
        CallRecord secondRetry = new CallRecord(2, KEY, 2, false, InFlightPolicy.WAIT, StoreFailureMode.FAIL_OPEN,
                TimeUnit.SECONDS.toNanos(120));
        secondRetry.sent(2 * SECOND);
        secondRetry.actionStarted(5 * SECOND + SECOND / 10, true);
        secondRetry.charged("ch_2");
        secondRetry.answered(6 * SECOND, "ch_2", Outcome.EXECUTED);
        NemesisVerdict verdict = NemesisChecker.check(history(List.of(child, retry("ch_1"), secondRetry), List.of(
                new FaultEvent(FaultKind.KILL_HOLDER, 1 * SECOND, 2 * SECOND, null, KEY))));
        assertThat(verdict.violations()).singleElement()
                .satisfies(violation -> assertThat(violation.rule()).isEqualTo("duplicate-charge"));
    }

    /**
     * On a killed child's key a retry took the key over (the kill explains it) and another failed open
     * while the store was faulted (the fault explains it): each run has its own explanation. The
     * first published run flagged such keys, since only the holder fault was heard there.
     */
    @Test
    void aFailOpenUnderAStoreFaultBesideAHolderFaultIsExplainedToo() {
        CallRecord failedOpen = new CallRecord(2, KEY, 2, false, InFlightPolicy.WAIT, StoreFailureMode.FAIL_OPEN,
                TimeUnit.SECONDS.toNanos(120));
        failedOpen.sent(7 * SECOND);
        failedOpen.actionStarted(7 * SECOND + SECOND / 10, false);
        failedOpen.charged("ch_3");
        failedOpen.answered(7 * SECOND + SECOND / 5, "ch_3", Outcome.FAILED_OPEN);
        List<Charge> ledger = List.of(charge("ch_1"), charge("ch_2"), charge("ch_3"));
        NemesisVerdict verdict = NemesisChecker.check(history(List.of(killedChild("ch_1"), retry("ch_2"), failedOpen),
                List.of(new FaultEvent(FaultKind.KILL_HOLDER, 1 * SECOND, 2 * SECOND, null, KEY),
                        new FaultEvent(FaultKind.STOP_SERVER, 6 * SECOND, 7 * SECOND, null)), ledger));
        assertThat(verdict.violations()).isEmpty();
        assertThat(verdict.explainedDuplicates()).isEqualTo(2);
    }

    @Test
    void aPausedHoldersSecondChargeWithoutItsFaultIsFlagged() {
        NemesisVerdict verdict = NemesisChecker.check(history(List.of()));
        assertThat(verdict.passed()).isFalse();
        assertThat(verdict.violations()).singleElement().satisfies(violation -> {
            assertThat(violation.rule()).isEqualTo("duplicate-charge");
            assertThat(violation.key()).isEqualTo(KEY);
        });
    }

    @Test
    void aHolderFaultOnAnotherKeyOrAStoreFaultExplainsNothing() {
        NemesisVerdict verdict = NemesisChecker.check(history(List.of(
                new FaultEvent(FaultKind.KILL_HOLDER, 1 * SECOND, 9 * SECOND, null, KEY + 1),
                new FaultEvent(FaultKind.STOP_SERVER, SECOND + SECOND / 2, 5 * SECOND, null),
                new FaultEvent(FaultKind.PAUSE_HOLDER, 1 * SECOND, 9 * SECOND, "stopped during the pause", KEY))));
        assertThat(verdict.violations()).singleElement()
                .satisfies(violation -> assertThat(violation.rule()).isEqualTo("duplicate-charge"));
    }

    /** The child held the key from 1 s and charged ch_2 at 8 s; a retry took it at 5 s and charged ch_1. */
    private static NemesisHistory history(List<FaultEvent> faults) {
        CallRecord child = CallRecord.ofChild(0, KEY, TimeUnit.SECONDS.toNanos(120));
        child.sent(SECOND / 2);
        child.actionStarted(1 * SECOND, true);
        child.charged("ch_2");
        child.answered(8 * SECOND, "ch_2", Outcome.EXECUTED);
        return history(List.of(child, retry("ch_1")), faults);
    }

    /** The child that held the key from 1 s and was killed at 2 s, having charged {@code charge} ({@code null}: not yet). */
    private static CallRecord killedChild(String charge) {
        CallRecord child = CallRecord.ofChild(0, KEY, TimeUnit.SECONDS.toNanos(120));
        child.sent(SECOND / 2);
        child.actionStarted(1 * SECOND, true);
        if (charge != null) {
            child.charged(charge);
        }
        child.failed(2 * SECOND, "killed (SIGKILL)");
        return child;
    }

    /** A retry that took the key at 5 s and charged {@code charge}. */
    private static CallRecord retry(String charge) {
        CallRecord retry = new CallRecord(1, KEY, 1, false, InFlightPolicy.WAIT, StoreFailureMode.FAIL_OPEN,
                TimeUnit.SECONDS.toNanos(120));
        retry.sent(2 * SECOND);
        retry.actionStarted(5 * SECOND, true);
        retry.charged(charge);
        retry.answered(6 * SECOND, charge, Outcome.EXECUTED);
        return retry;
    }

    private static Charge charge(String id) {
        return new Charge(id, LoadKeys.orderId(KEY), LoadKeys.amount(KEY), id);
    }

    private static NemesisHistory history(List<CallRecord> calls, List<FaultEvent> faults) {
        return history(calls, faults, List.of(charge("ch_1"), charge("ch_2")));
    }

    private static NemesisHistory history(List<CallRecord> calls, List<FaultEvent> faults, List<Charge> ledger) {
        NemesisSettings settings = new NemesisSettings(1, Duration.ofSeconds(10), NemesisSettings.DEFAULT_LEASE, false,
                Sabotage.NONE);
        return new NemesisHistory(settings, new ServerInfo("redis", "7", Origin.BUNDLED, "127.0.0.1:6379"),
                calls, faults, ledger, 10 * SECOND, new IdempotencyStats(new EnumMap<>(Outcome.class), new EnumMap<>(StorePhase.class), 0, 0, 0));
    }
}
