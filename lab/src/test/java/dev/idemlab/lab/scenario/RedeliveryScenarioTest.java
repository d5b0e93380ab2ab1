package dev.idemlab.lab.scenario;

import dev.idemlab.lab.infra.MemoryBackend;
import dev.idemlab.lab.infra.PostgresBackend;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.policy.LabPolicy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code lab scenario redelivery} on a broker the lab starts: a rebalance delivers the charge record to B
 * while A is inside the charge (ordered here by a latch: A charges once B has the record). The
 * processed-messages table charges twice; the adapter, under WAIT and SKIP, once; each read off the
 * provider's ledger. The inbox, on PostgreSQL, once, with one order row read back from its table.
 */
class RedeliveryScenarioTest {

    private static RedeliveryBroker broker;

    @BeforeAll
    static void start() {
        broker = new RedeliveryBroker(null);
    }

    @AfterAll
    static void stop() {
        broker.close();
    }

    @ParameterizedTest
    @EnumSource(LabPolicy.class)
    void theProcessedTableChargesTwiceAndTheAdapterOnce(LabPolicy policy) throws InterruptedException {
        ScenarioRun run;
        try (MemoryBackend backend = new MemoryBackend()) {
            run = new RedeliveryScenario(broker, true).run(
                    new ScenarioContext(backend, ScenarioSettings.defaults(), CoordinatorFactory.LIBRARY), policy);
        }
        assertThat(run.callers()).extracting(CallerResult::name).containsExactly("A", "B");
        assertThat(run.settings().get("broker").toString()).contains("Kafka 4.1.2", "127.0.0.1", "in-process");
        assertThat(run.note()).contains("while A was still inside the charge");
        if (policy == LabPolicy.RUN) {
            assertThat(run.charges()).as("the ledger").containsExactly("ch_1", "ch_2");
        } else {
            assertThat(run.charges()).as("the ledger").containsExactly("ch_1");
            assertThat(run.responses()).containsExactly("ch_1", "ch_1");
        }
        if (policy == LabPolicy.RAISE) {
            assertThat(run.note()).contains("B skipped it");
        }
        if (policy == LabPolicy.WAIT) {
            assertThat(run.callers().get(1).outcome()).isEqualTo("waited");
        }
    }

    @Test
    void theInboxChargesOnceAndWritesOneOrderRow() throws InterruptedException {
        ScenarioRun run;
        try (PostgresBackend backend = PostgresBackend.open(ProvisioningOptions.defaults())) {
            run = new RedeliveryScenario(broker, true, true).run(
                    new ScenarioContext(backend, ScenarioSettings.defaults(), CoordinatorFactory.LIBRARY), LabPolicy.WAIT);
        }
        assertThat(run.label()).isEqualTo(RedeliveryScenario.INBOX_LABEL);
        assertThat(run.note()).contains("while A was still inside the charge", "read back: 1 order row in lab_orders");
        assertThat(run.charges()).as("the ledger").containsExactly("ch_1");
        assertThat(run.responses()).containsExactly("ch_1", "ch_1");
        assertThat(run.settings()).containsEntry("orders", 1);
    }

    @Test
    void theInboxNeedsTheStoresOwnPostgres() {
        try (MemoryBackend backend = new MemoryBackend()) {
            assertThatThrownBy(() -> RedeliveryScenario.inbox(broker).run(
                    new ScenarioContext(backend, ScenarioSettings.defaults(), CoordinatorFactory.LIBRARY), LabPolicy.WAIT))
                    .isInstanceOf(CannotStageException.class).hasMessageContaining("use --store postgres");
        }
    }
}
