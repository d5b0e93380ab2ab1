package dev.idemlab.lab.load;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The knee search's choice of rates, against a fake measurement: no load runs, no clock read. */
class KneeSearchTest {

    /** A store whose p99 crosses 50 ms above {@code knee}/s, with no duplicate charge. */
    private static KneeSearch.Probe kneeAt(long knee, List<Long> tried) {
        return rate -> {
            tried.add(rate);
            return new KneeSearch.Measured(rate * 1.2, rate <= knee ? 10 : 200, 0, 0);
        };
    }

    @Test
    void rampsUpThenBisectsToWithinThePrecision() throws InterruptedException {
        List<Long> tried = new ArrayList<>();
        Knee knee = new KneeSearch(new KneeSettings(500, 1_000_000, 50, 0.1, 20), step -> { })
                .search(kneeAt(6_000, tried));

        assertThat(tried).startsWith(500L, 1_000L, 2_000L, 4_000L, 8_000L, 8_000L);
        assertThat(knee.bracketed()).isTrue();
        assertThat(knee.passing()).isLessThanOrEqualTo(6_000).isGreaterThan(5_454L);
        assertThat(knee.failing()).isGreaterThan(6_000).isLessThanOrEqualTo((long) (knee.passing() * 1.1) + 1);
        assertThat(knee.steps()).extracting(KneeStep::number).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void rampsDownWhenTheStartFails() throws InterruptedException {
        List<Long> tried = new ArrayList<>();
        Knee knee = new KneeSearch(new KneeSettings(8_000, 1_000_000, 50, 0.1, 20), step -> { })
                .search(kneeAt(1_500, tried));

        assertThat(tried).startsWith(8_000L, 8_000L, 4_000L, 4_000L, 2_000L, 2_000L, 1_000L);
        assertThat(knee.passing()).isLessThanOrEqualTo(1_500).isGreaterThan(1_300);
    }

    @Test
    void aDuplicateChargeFailsAStepWhateverItsLatency() throws InterruptedException {
        KneeSearch.Probe duplicatesAbove = rate -> new KneeSearch.Measured(rate, 5, rate > 3_000 ? 1 : 0, 0);
        List<KneeStep> steps = new ArrayList<>();

        Knee knee = new KneeSearch(new KneeSettings(1_000, 1_000_000, 50, 0.1, 20), steps::add).search(duplicatesAbove);

        assertThat(knee.passing()).isLessThanOrEqualTo(3_000);
        assertThat(steps).filteredOn(step -> !step.passed())
                .allSatisfy(step -> assertThat(step.why()).containsExactly("1 duplicate charge(s)"));
        assertThat(steps).hasSameSizeAs(knee.steps());
    }

    @Test
    void saysSoWhenNothingFailsOrNothingPasses() throws InterruptedException {
        Knee above = new KneeSearch(new KneeSettings(1_000, 4_000, 50, 0.1, 20), step -> { })
                .search(rate -> new KneeSearch.Measured(rate, 1, 0, 0));
        Knee below = new KneeSearch(new KneeSettings(4, 4_000, 50, 0.1, 20), step -> { })
                .search(rate -> new KneeSearch.Measured(rate, 999, 0, 0));

        assertThat(above.steps()).extracting(KneeStep::rate).containsExactly(1_000L, 2_000L, 4_000L);
        assertThat(above.bracketed()).isFalse();
        assertThat(above.describe()).isEqualTo("at least 4,000/s");
        assertThat(below.steps()).extracting(KneeStep::rate).containsExactly(4L, 4L, 2L, 2L, 1L, 1L);
        assertThat(below.describe()).isEqualTo("under 1/s");
    }

    @Test
    void aRateFailsOnlyWhenASecondRunAtItFailsToo() throws InterruptedException {
        List<Long> tried = new ArrayList<>();
        boolean[] pausedOnce = {false};
        KneeSearch.Probe onePause = rate -> {
            tried.add(rate);
            boolean pause = rate == 2_000 && !pausedOnce[0];
            pausedOnce[0] |= pause;
            return new KneeSearch.Measured(rate, pause || rate > 4_000 ? 300 : 10, 0, 0);
        };

        Knee knee = new KneeSearch(new KneeSettings(1_000, 1_000_000, 50, 0.5, 20), step -> { }).search(onePause);

        assertThat(tried).startsWith(1_000L, 2_000L, 2_000L, 4_000L, 8_000L, 8_000L);
        assertThat(knee.passing()).isEqualTo(4_000);
        assertThat(knee.failing()).isEqualTo(5_657);
    }

    @Test
    void neverRunsMoreStepsThanAllowed() throws InterruptedException {
        List<Long> tried = new ArrayList<>();
        Knee knee = new KneeSearch(new KneeSettings(500, 1_000_000, 50, 0.01, 4), step -> { })
                .search(kneeAt(100_000, tried));

        assertThat(tried).containsExactly(500L, 1_000L, 2_000L, 4_000L);
        assertThat(knee.describe()).isEqualTo("at least 4,000/s");
    }

    @Test
    void theRatioToRawAndItsVerdictFollowTheStoresTarget() {
        Knee coordinator = new Knee(3_000, 3_300, List.of());
        Knee raw = new Knee(5_000, 5_500, List.of());
        dev.idemlab.lab.infra.ServerInfo redis = new dev.idemlab.lab.infra.ServerInfo("redis", "7",
                dev.idemlab.lab.infra.Origin.IN_PROCESS, "in-process");

        StoreKnees row = new StoreKnees(redis, coordinator, raw);
        StoreKnees slow = new StoreKnees(redis, new Knee(2_000, 2_200, List.of()), raw);
        StoreKnees rawAboveEveryRate = new StoreKnees(redis, coordinator, new Knee(5_000, 0, List.of()));

        assertThat(row.ratio().getAsDouble()).isEqualTo(0.6);
        assertThat(row.verdict()).isEqualTo("met");
        assertThat(slow.verdict()).isEqualTo("missed");
        assertThat(rawAboveEveryRate.ratioBound()).isEqualTo("at most");
    }
}
