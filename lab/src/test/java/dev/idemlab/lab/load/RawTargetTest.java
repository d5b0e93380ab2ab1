package dev.idemlab.lab.load;

import dev.idemlab.lab.infra.MemoryBackend;
import java.time.Duration;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The raw driver, a few hundred requests on the memory store: with concurrent duplicates, the ledger
 * still holds one charge per key, and every answer agrees with it.
 */
class RawTargetTest {

    @Test
    void theRawDriverChargesEachKeyOnceAndItsAnswersAgreeWithTheLedger() throws InterruptedException {
        LoadSettings settings = new LoadSettings(4, 0.5, Duration.ofMillis(2), 1_000_000, null, 400, 7);

        LoadRun run = new LoadGenerator(settings, (store, policy, config) -> {
            throw new AssertionError("the raw driver needs no coordinator");
        }, LoadProgress.NONE).runRaw(new MemoryBackend());

        LedgerCheck check = run.check();
        assertThat(check.requests()).isEqualTo(400);
        assertThat(check.failures()).isEmpty();
        assertThat(check.duplicateCharges()).isZero();
        assertThat(check.indeterminate()).isZero();
        assertThat(check.charges()).isEqualTo(check.keysCharged()).isPositive();
        assertThat(check.answered() + check.inProgress()).isEqualTo(400);
        assertThat(run.latency().count()).isEqualTo(400);
    }
}
