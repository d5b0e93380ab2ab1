package dev.idemlab.lab.nemesis;

import dev.idemlab.lab.faults.FaultKind;
import dev.idemlab.provider.Charge;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The consumer nemesis's checker on planted histories: an extra charge explained by the kill of the member
 * that was handling its key passes, the same without the kill (or with the provider deduplicating) does
 * not, one kill explains one extra charge only, and a commit asked before its record finished is flagged.
 */
class ConsumerCheckerTest {

    @Test
    void aSecondChargeAfterItsHandlerWasKilledIsExplained() {
        assertThat(ConsumerChecker.check(history(false, true, 2))).isEmpty();
    }

    @Test
    void aSecondChargeWithNothingAroundItIsADuplicate() {
        assertThat(ConsumerChecker.check(history(false, false, 2))).extracting(Violation::rule)
                .containsExactly("duplicate-charge");
    }

    @Test
    void withTheProviderDeduplicatingNothingExcusesASecondCharge() {
        assertThat(ConsumerChecker.check(history(true, true, 2))).extracting(Violation::rule)
                .containsExactly("duplicate-charge");
    }

    @Test
    void oneKillExplainsOneExtraChargeNotTwo() {
        assertThat(ConsumerChecker.check(history(false, true, 3))).extracting(Violation::rule)
                .containsExactly("duplicate-charge");
    }

    @Test
    void aCommitAskedBeforeItsRecordFinishedIsFlagged() {
        ConsumerHistory planted = history(false, true, 2);
        List<ConsumerEvent> events = new ArrayList<>(planted.events());
        events.add(new ConsumerEvent('C', 250, "lab-1", null, 0, 1, "ok")); // before lab-1 finished offset 0 at 300
        ConsumerHistory early = new ConsumerHistory(planted.settings(), "redis", "redis", "redis", events, planted.faults(),
                planted.ledger(), planted.committed(), planted.ends(), 2, 1, true);
        assertThat(ConsumerChecker.check(early)).extracting(Violation::rule).containsExactly("commit-past-unfinished");
    }

    /**
     * k-0 at partition 0, offset 0: child-1 begins it and charges, then (where {@code killed}) is killed; lab-1
     * begins it, charges the rest of {@code charges}, finishes and commits past it.
     */
    private static ConsumerHistory history(boolean downstreamKey, boolean killed, int charges) {
        List<ConsumerEvent> events = new ArrayList<>(List.of(
                new ConsumerEvent('P', 10, "producer", "k-0", 0, 0, "first"),
                new ConsumerEvent('B', 20, "child-1", "k-0", -1, -1, null),
                new ConsumerEvent('H', 30, "child-1", "k-0", 0, 0, "ch_1"),
                new ConsumerEvent('B', 200, "lab-1", "k-0", -1, -1, null)));
        List<Charge> ledger = new ArrayList<>(List.of(new Charge("ch_1", "k-0", 100, null)));
        for (int i = 2; i <= charges; i++) {
            events.add(new ConsumerEvent('H', 200 + i, "lab-1", "k-0", 0, 0, "ch_" + i));
            ledger.add(new Charge("ch_" + i, "k-0", 100, null));
        }
        events.add(new ConsumerEvent('F', 300, "lab-1", "k-0", 0, 0, "HANDLED"));
        events.add(new ConsumerEvent('C', 310, "lab-1", null, 0, 1, "ok"));
        List<ConsumerFault> faults = killed
                ? List.of(new ConsumerFault(FaultKind.KILL_CONSUMER, "child-1", "", 40, 50, null)) : List.of();
        ConsumerNemesis.Settings settings = new ConsumerNemesis.Settings(1, Duration.ofSeconds(1), Duration.ofSeconds(3),
                downstreamKey, Sabotage.NONE, true, null);
        return new ConsumerHistory(settings, "redis", "redis", "redis", events, faults, ledger, Map.of(0, 1L), Map.of(0, 1L),
                2, 1, true);
    }
}
