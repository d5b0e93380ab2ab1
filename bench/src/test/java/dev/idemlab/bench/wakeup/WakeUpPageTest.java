package dev.idemlab.bench.wakeup;

import dev.idemlab.bench.wakeup.WakeUpHarness.Row;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class WakeUpPageTest {

    /** A row whose every delay is {@code millis}, so its median and p99 are that. */
    private static Row row(String store, String who, int waiters, double millis) {
        Histogram delays = new Histogram(3);
        delays.recordValue((long) (millis * 1_000_000));
        return new Row(store, who, waiters, delays);
    }

    @Test
    void aRowWithinItsStoresTargetsAndAheadOfTheAnchorIsMet() {
        Row ours = row("redis", WakeUpHarness.OURS, 10, 0.5);
        Row anchor = row("redis", "Redisson RLock", 10, 4.0);
        assertThat(WakeUpPage.verdict(ours, List.of(ours, anchor))).isEqualTo("met");
        assertThat(WakeUpPage.verdict(anchor, List.of(ours, anchor))).isEqualTo("(anchor)");
    }

    @Test
    void eachMissedTargetIsNamed() {
        Row slow = row("memory", WakeUpHarness.OURS, 1, 3.0);
        assertThat(WakeUpPage.verdict(slow, List.of(slow)))
                .startsWith("**missed**").contains("median 3.00 > 1").contains("p99 3.00 > 2");
        Row behind = row("redis", WakeUpHarness.OURS, 1, 0.9);
        Row anchor = row("redis", "Redisson RLock", 1, 0.5);
        assertThat(WakeUpPage.verdict(behind, List.of(behind, anchor))).contains("not ahead of Redisson RLock");
    }

    @Test
    void postgresHasOnlyItsLooserP99Target() {
        Row postgres = row("postgres", WakeUpHarness.OURS, 100, 4.5);
        assertThat(WakeUpPage.verdict(postgres, List.of(postgres))).isEqualTo("met");
        Row slower = row("postgres", WakeUpHarness.OURS, 100, 6.0);
        assertThat(WakeUpPage.verdict(slower, List.of(slower))).contains("p99 6.00 > 5");
    }
}
