package dev.idemlab.lab.nemesis;

import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.infra.StoreBackends;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The nemesis through local effects on a real PostgreSQL: each request places an order through a
 * workflow of the library's (order written with its recovery point, charge, order paid), some callers
 * fail after their order was written, a few reuse the key with another amount, while the store's faults
 * are injected; the orders are read back beside every answer. Seed 5 found, in 30 s, requests answered
 * with an order of another request on the same key (a workflow resuming the recovery points a released
 * request with another fingerprint had left), at 943aef0's workflows; {@code -Dnemesis.seed} replays
 * another.
 */
class LocalEffectsNemesisTest {

    @Test
    void everyAnswerNamesAnOrderOfItsOwnRequestPaidByItsOneCharge() throws Exception {
        String given = System.getProperty("nemesis.seed");
        long seed = given == null || given.isBlank() ? 5 : NemesisOnEveryStoreTest.seed();
        NemesisSettings settings = new NemesisSettings(seed, Duration.ofSeconds(20), NemesisSettings.DEFAULT_LEASE,
                true, Sabotage.NONE).withLocalEffects();
        System.out.println("nemesis with local effects on postgres: seed " + seed);
        NemesisResult result;
        try (StoreBackend backend = StoreBackends.open("postgres", ProvisioningOptions.defaults())) {
            result = NemesisRun.run(backend, settings, line -> System.out.println("  " + line));
        }
        String report = NemesisReport.text(result);
        System.out.println(report);
        assertThat(result.history().faults()).as("faults injected").isNotEmpty();
        assertThat(result.history().calls()).as("answers naming an order").anyMatch(call -> call.order() != null);
        assertThat(result.history().calls()).as("keys reused with another amount").anyMatch(CallRecord::reusesKey);
        assertThat(result.downstreamPass()).as("one pass: the provider deduplicates on the steps' keys").isNull();
        assertThat(result.passed()).as(report).isTrue();
    }
}
