package dev.idemlab.lab.scenario;

import dev.idemlab.lab.infra.MemoryBackend;
import dev.idemlab.lab.infra.PostgresBackend;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.policy.LabPolicy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code lab scenario redelivery} on a broker the lab starts: a rebalance delivers the charge record to B
 * while A is inside the charge (ordered here by a latch: A charges once B has the record). The
 * processed-messages table charges twice; the adapter, under WAIT and SKIP, once; each read off the
 * provider's ledger. The inbox, on PostgreSQL, once, with one order row read back from its table. Then
 * the crash table ({@link ConsumerKilledMidRecord}) on the same broker and PostgreSQL.
 */
class RedeliveryScenarioTest {

    private static RedeliveryBroker broker;
    /** The store's own PostgreSQL, for the inbox's row and the crash table: one for the class. */
    private static PostgresBackend postgres;

    @BeforeAll
    static void start() {
        broker = new RedeliveryBroker(null);
        postgres = PostgresBackend.open(ProvisioningOptions.defaults());
    }

    @AfterAll
    static void stop() {
        try {
            broker.close();
        } finally {
            postgres.close();
        }
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

    /** The same race in a group of the consumer protocol (KIP-848), where B gets the partition at its next heartbeat. */
    @ParameterizedTest
    @EnumSource(value = LabPolicy.class, names = {"RUN", "WAIT"})
    void theRaceIsTheSameInAGroupOfTheConsumerProtocol(LabPolicy policy) throws InterruptedException {
        ScenarioRun run;
        try (MemoryBackend backend = new MemoryBackend()) {
            run = RedeliveryScenario.onConsumerProtocol(broker).run(
                    new ScenarioContext(backend, ScenarioSettings.defaults(), CoordinatorFactory.LIBRARY), policy);
        }
        assertThat(run.settings()).containsEntry("groupProtocol", "consumer").containsEntry("bDuringA", true);
        assertThat(run.label()).endsWith(", consumer protocol");
        assertThat(run.note()).contains("while A was still inside the charge").contains("A's commit was refused");
        assertThat(run.charges()).as("the ledger")
                .containsExactlyElementsOf(policy == LabPolicy.RUN ? List.of("ch_1", "ch_2") : List.of("ch_1"));
    }

    @Test
    void theInboxChargesOnceAndWritesOneOrderRow() throws InterruptedException {
        ScenarioRun run = new RedeliveryScenario(broker, true, true).run(
                new ScenarioContext(postgres, ScenarioSettings.defaults(), CoordinatorFactory.LIBRARY), LabPolicy.WAIT);
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

    /**
     * {@code lab scenario redelivery-crash}, the second table: consumer A runs in a child JVM and is really
     * killed with SIGKILL at a boundary of its handling of the charge record, then the record is redelivered
     * to consumer B. Every figure is read back: charges from the provider's ledger, order rows from their
     * table, the record's fate from the offset the broker holds for the group. On the class's broker and
     * PostgreSQL; four rows, those the table exists to show.
     */
    @Nested
    class ConsumerKilledMidRecord {

        private ScenarioRun run(String mode, String boundary) throws InterruptedException {
            ScenarioRun run = new RedeliveryCrashScenario(broker, mode, boundary).run(
                    new ScenarioContext(postgres, ScenarioSettings.defaults(), CoordinatorFactory.LIBRARY), LabPolicy.WAIT);
            CallerResult a = run.callers().get(0);
            assertThat(a.response()).as("consumer A's end").isEqualTo("killed at " + boundary);
            assertThat(a.outcome()).as("a real SIGKILL").isEqualTo("sigkill, exit 137");
            assertThat(run.settings()).containsEntry("holderExit", 137);
            assertThat(run.settings()).as("the group committed past the record: handled, nothing lost")
                    .containsEntry("committedOffset", 1L).containsEntry("recordHandled", true);
            assertThat(run.settings().get("broker").toString()).contains("Kafka 4.1.2", "127.0.0.1", "in-process");
            assertThat(Expectations.check(run).passed()).as(Expectations.check(run).line()).isTrue();
            return run;
        }

        @Test
        void aProcessedTableChargesTwiceWhenItsConsumerIsKilledAfterTheCharge() throws InterruptedException {
            ScenarioRun run = run("processed-table", "charge_created");
            assertThat(run.charges()).as("the ledger").containsExactly("ch_1", "ch_2");
            assertThat(run.callers().get(1).response()).isEqualTo("ch_2");
        }

        @Test
        void theAdapterReplaysARecordCompletedButNotCommitted() throws InterruptedException {
            ScenarioRun run = run("adapter", "record_completed");
            assertThat(run.charges()).as("the ledger").containsExactly("ch_1");
            assertThat(run.callers().get(1).outcome()).isEqualTo("replayed");
            assertThat(run.callers().get(1).response()).isEqualTo("ch_1");
        }

        @Test
        void theAdapterWithTheDownstreamKeyChargesOnceAtADeduplicatingProvider() throws InterruptedException {
            ScenarioRun run = run("adapter-downstream-key", "charge_created");
            assertThat(run.charges()).as("the ledger").containsExactly("ch_1");
            assertThat(run.callers().get(1).response()).as("B is handed A's charge").isEqualTo("ch_1");
        }

        @Test
        void theInboxWithTheDownstreamKeyChargesOnceAndLeavesOneOrderRow() throws InterruptedException {
            ScenarioRun run = run("inbox-downstream-key", "charge_created");
            assertThat(run.charges()).as("the ledger").containsExactly("ch_1");
            // A had written its order row when it was killed: one row means its transaction rolled back
            assertThat(run.settings()).as("order rows read back from lab_orders").containsEntry("orders", 1);
        }
    }
}
