package dev.idemlab.lab.cli;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The order scenarios' usage rules: PostgreSQL only, a known mode, a known step boundary. */
class OrderScenarioCommandTest {

    @Test
    void anotherStoreIsRefusedNamingTheRule() {
        LabRun run = LabRun.of("scenario", "crash-mid-order", "--store", "redis");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("crash-mid-order keeps its orders in the store's own PostgreSQL");
    }

    @Test
    void anUnknownBoundaryOrModeIsRefused() {
        LabRun at = LabRun.of("scenario", "stale-holder-order", "--at", "order_shipped");
        assertThat(at.exitCode()).isEqualTo(2);
        assertThat(at.err()).contains("--at must be one of order_created, charge_created, order_paid, receipt_sent or each");

        LabRun mode = LabRun.of("scenario", "stale-holder-order", "--mode", "workflow");
        assertThat(mode.exitCode()).isEqualTo(2);
        assertThat(mode.err()).contains("--mode must be one of downstream-key, transactional or all");
    }

    @Test
    void theScenarioFixesItsOwnTiming() {
        LabRun run = LabRun.of("scenario", "crash-mid-order", "--lease-s", "5");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--lease-s: crash-mid-order sets it for itself");
    }
}
