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

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static dev.idemlab.lab.nemesis.HandBuiltHistory.ms;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * How the checker reads a pause or kill of the sample's JVM, which holds every key in flight: a second
 * charge on a key is a legitimate takeover only once the holder's lease can have ended (a lease after
 * its last heartbeat before the fault: with a 3 s lease, beats a second apart), and only for a holder
 * that was in flight as the fault came. Histories built by hand, one key, times in milliseconds.
 */
class SampleHolderFaultsCheckerTest {

    private static final int KEY = 3;

    @Test
    void aKilledHoldersChargeAndATakeoverAfterItsLeaseAreExplained() {
        // Killed at 2.0 s (back at 2.5 s), its last beat no earlier than 0.75 s: its lease lasted to 3.75 s at least.
        NemesisVerdict verdict = NemesisChecker.check(history(Through.SAMPLE, killAt(2000), 5200));

        assertThat(verdict.violations()).isEmpty();
        assertThat(verdict.explanations()).containsEntry("holder killed", 1);
    }

    @Test
    void aTakeoverWhileTheKilledHoldersLeaseStillHeldIsADoubleCharge() {
        NemesisVerdict verdict = NemesisChecker.check(history(Through.SAMPLE, killAt(2000), 3000));

        assertThat(verdict.violations()).extracting(Violation::rule).containsExactly("duplicate-charge");
        assertThat(verdict.violations().get(0).witness()).anyMatch(line -> line.contains("fault kill-holder"));
    }

    @Test
    void aHolderPausedPastItsLeaseExplainsTheChargeOfTheCallThatTookItsKey() {
        FaultEvent pause = new FaultEvent(FaultKind.PAUSE_HOLDER, ms(2000), ms(5500), null, HolderFaults.EVERY_KEY);
        NemesisVerdict verdict = NemesisChecker.check(history(Through.SAMPLE, pause, 5600));

        assertThat(verdict.violations()).isEmpty();
        assertThat(verdict.explanations()).containsEntry("holder paused past its lease", 1);
    }

    /** Found by the sample's run (seed 4599619765040479347): its client gave up, its request ran on and was paused. */
    @Test
    void aHolderWhoseClientGaveUpBeforeThePauseStillHeldTheKey() {
        FaultEvent pause = new FaultEvent(FaultKind.PAUSE_HOLDER, ms(2000), ms(5500), null, HolderFaults.EVERY_KEY);
        NemesisHistory history = history(Through.SAMPLE, pause, 5600);
        history.calls().get(0).failed(ms(1500), "client-gave-up");

        NemesisVerdict verdict = NemesisChecker.check(history);

        assertThat(verdict.violations()).isEmpty();
        assertThat(verdict.explanations()).containsEntry("holder paused past its lease", 1);
    }

    /**
     * Found by the sample's run (seed 4577778147615940801): the kill was issued, the dying JVM reset the
     * holder's connection (its client's answer, a lost connection, 1 ms before the kill was seen to take
     * effect), and the taker charged long after the holder's lease. In flight as the kill was issued is held.
     */
    @Test
    void aHolderWhoseConnectionTheDyingJvmResetBeforeTheKillTookEffectStillHeldTheKey() {
        FaultEvent kill = new FaultEvent(FaultKind.KILL_HOLDER, ms(2000), ms(2500), null, HolderFaults.EVERY_KEY, ms(1990));
        NemesisHistory history = history(Through.SAMPLE, kill, 5200);
        history.calls().get(0).failed(ms(1999), new IOException("connection reset"));

        NemesisVerdict verdict = NemesisChecker.check(history);

        assertThat(verdict.violations()).isEmpty();
        assertThat(verdict.explanations()).containsEntry("holder killed", 1);
    }

    @Test
    void aHolderThatAnsweredBeforeTheKillLostNothingToIt() {
        NemesisHistory history = history(Through.SAMPLE, killAt(2000), 5200, 1500);

        assertThat(NemesisChecker.check(history).violations()).extracting(Violation::rule)
                .containsExactly("duplicate-charge");
    }

    @Test
    void onAnyOtherLayerAJvmWideHolderFaultExplainsNothing() {
        NemesisVerdict verdict = NemesisChecker.check(history(Through.HTTP, killAt(2000), 5200));

        assertThat(verdict.violations()).extracting(Violation::rule).containsExactly("duplicate-charge");
    }

    private static FaultEvent killAt(long millis) {
        return new FaultEvent(FaultKind.KILL_HOLDER, ms(millis), ms(millis + 500), null, HolderFaults.EVERY_KEY);
    }

    private static NemesisHistory history(Through through, FaultEvent fault, long takenAtMillis) {
        return history(through, fault, takenAtMillis, -1);
    }

    /**
     * The holder, sent at 0.1 s, charged at 0.5 s and (unless it answered at {@code holderAnsweredAt}) cut
     * off as the fault began; the taker, sent at 1.0 s, charged at {@code takenAtMillis} and answered.
     */
    private static NemesisHistory history(Through through, FaultEvent fault, long takenAtMillis, long holderAnsweredAt) {
        List<Charge> ledger = new ArrayList<>();
        List<CallRecord> calls = new ArrayList<>();
        CallRecord holder = call(calls, ledger, 100, 500);
        if (holderAnsweredAt >= 0) {
            holder.answered(ms(holderAnsweredAt), holder.charged(), Outcome.EXECUTED);
        } else {
            holder.failed(fault.startedAt(), new IOException("connection reset"));
        }
        CallRecord taker = call(calls, ledger, 1000, takenAtMillis);
        taker.answered(ms(takenAtMillis + 100), taker.charged(), Outcome.EXECUTED);
        NemesisSettings settings = new NemesisSettings(7, Duration.ofSeconds(10), Duration.ofMillis(3000), false,
                Sabotage.NONE, through, Clients.BEARER);
        return new NemesisHistory(settings, new ServerInfo("redis", "test", Origin.BUNDLED, "127.0.0.1:0", "none"),
                calls, List.of(fault), ledger, ms(12_000), NemesisHistory.sum(List.of()));
    }

    /** A call of the key sent at {@code sentAt} whose action charged at {@code chargedAt}, its fence unknown. */
    private static CallRecord call(List<CallRecord> calls, List<Charge> ledger, long sentAt, long chargedAt) {
        CallRecord call = new CallRecord(calls.size(), KEY, calls.size(), false, InFlightPolicy.WAIT,
                StoreFailureMode.FAIL_CLOSED, ms(60_000));
        call.sent(ms(sentAt));
        call.actionStarted(ms(chargedAt), true);
        Charge charge = new Charge("ch_" + (ledger.size() + 1), LoadKeys.orderId(KEY), LoadKeys.amount(KEY), null);
        ledger.add(charge);
        call.charged(charge.id());
        calls.add(call);
        return call;
    }
}
