package dev.idemlab.lab.nemesis;

import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.infra.StoreBackends;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The build's bounded nemesis run: on every store, a seeded random workload while faults are injected
 * at random, checked against the provider's ledger. A fresh seed each build (printed, with the command
 * that replays it), so that every build explores a new schedule; {@code -Dnemesis.seed=N} replays one
 * and {@code -Dnemesis.duration=60s} runs longer.
 */
class NemesisOnEveryStoreTest {

    @ParameterizedTest(name = "the nemesis on {0} finds no violation")
    @ValueSource(strings = {"memory", "redis", "postgres", "redis-cluster"})
    void theNemesisFindsNoViolation(String store) throws Exception {
        NemesisSettings settings = new NemesisSettings(seed(), duration(), NemesisSettings.DEFAULT_LEASE, false,
                Sabotage.NONE);
        System.out.println("nemesis on " + store + ": seed " + settings.seed());
        NemesisResult result;
        try (StoreBackend backend = StoreBackends.open(store, ProvisioningOptions.defaults())) {
            result = NemesisRun.run(backend, settings, line -> System.out.println("  " + line));
        }
        String report = NemesisReport.text(result);
        System.out.println(report);
        assertThat(result.history().faults()).as("faults injected").isNotEmpty();
        assertThat(result.history().ledger()).as("charges made").isNotEmpty();
        assertThat(result.passed()).as(report).isTrue();
    }

    static long seed() {
        String given = System.getProperty("nemesis.seed");
        return given != null && !given.isBlank() ? Long.parseLong(given.trim())
                : System.nanoTime() ^ Double.doubleToLongBits(Math.random());
    }

    private static Duration duration() {
        String given = System.getProperty("nemesis.duration", "20s").trim();
        return Duration.ofSeconds(Long.parseLong(given.replaceAll("s$", "")));
    }
}
