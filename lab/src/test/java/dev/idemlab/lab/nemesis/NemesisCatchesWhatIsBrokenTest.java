package dev.idemlab.lab.nemesis;

import dev.idemlab.lab.infra.MemoryBackend;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The nemesis's checker can fail: with the post's result cache as the coordinator, or with a store that
 * now and then grants a key another attempt holds, a short run finds a second charge that nothing
 * explains, names its key and prints the seed that replays it.
 */
class NemesisCatchesWhatIsBrokenTest {

    @ParameterizedTest(name = "{0} is caught charging twice")
    @EnumSource(value = Sabotage.class, names = {"RESULT_CACHE", "FORGETFUL_STORE"})
    void aBrokenCoordinatorOrStoreIsCaught(Sabotage sabotage) throws Exception {
        long seed = NemesisOnEveryStoreTest.seed();
        NemesisSettings settings = new NemesisSettings(seed, Duration.ofSeconds(8), NemesisSettings.DEFAULT_LEASE,
                false, sabotage);
        NemesisResult result;
        try (MemoryBackend backend = new MemoryBackend()) {
            result = NemesisRun.run(backend, settings, line -> { });
        }
        String report = NemesisReport.text(result);
        assertThat(result.passed()).as(report).isFalse();
        assertThat(result.verdict().violations()).as(report)
                .anySatisfy(violation -> assertThat(violation.rule()).isEqualTo("duplicate-charge"));
        assertThat(report).contains("seed " + seed).contains("--sabotage " + sabotage.id()).contains("gantt");
    }
}
