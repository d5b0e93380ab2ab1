package dev.idemlab.lab.scenario;

import dev.idemlab.lab.infra.MemoryBackend;
import dev.idemlab.lab.policy.LabPolicy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code lab scenario share-lock-expiry} on a broker the lab starts with share groups on (KIP-932, a 1 s
 * acquisition lock): member A holds the charge record past its lock (ordered here by a latch: A charges
 * once B has the record), the broker delivers it again to member B. The processed-messages table charges
 * twice; the adapter, under WAIT and SKIP, once; each read off the provider's ledger. A's late
 * acknowledgement is refused; B's first delivery is a redelivery (the record's second, as a rule).
 */
class ShareLockExpiryScenarioTest {

    private static RedeliveryBroker broker;

    @BeforeAll
    static void start() {
        broker = RedeliveryBroker.withShareGroups(null);
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
            run = new ShareLockExpiryScenario(broker, true).run(
                    new ScenarioContext(backend, ScenarioSettings.defaults(), CoordinatorFactory.LIBRARY), policy);
        }
        assertThat(run.callers()).extracting(CallerResult::name).containsExactly("A", "B");
        assertThat(run.settings().get("broker").toString()).contains("Kafka 4.1.2", "127.0.0.1", "in-process", "share groups");
        assertThat(run.settings()).containsEntry("recordLockMs", 1000L);
        assertThat(run.note()).contains("while A was still inside the charge");
        @SuppressWarnings("unchecked")
        Map<String, List<Integer>> deliveries = (Map<String, List<Integer>>) run.settings().get("deliveries");
        assertThat(deliveries.get("A")).as("A's delivery counts").containsExactly(1);
        // B's first is a redelivery: the second as a rule; once, beside a build, the third (a delivery in between
        // reached no member's handler, its lock running out too). The count is the broker's, not the lab's.
        assertThat(deliveries.get("B")).as("B's delivery counts").first().satisfies(n -> assertThat(n).isGreaterThanOrEqualTo(2));
        assertThat(run.note()).as("A's acknowledgement after its lock ran out")
                .contains("A: delivery 1 handled, ACCEPT refused (InvalidRecordStateException)");
        if (policy == LabPolicy.RUN) {
            assertThat(run.charges()).as("the ledger").containsExactly("ch_1", "ch_2");
        } else {
            assertThat(run.charges()).as("the ledger").containsExactly("ch_1");
            assertThat(run.responses()).containsExactly("ch_1", "ch_1");
        }
        if (policy == LabPolicy.RAISE) {
            assertThat(run.note()).containsPattern("B: delivery \\d+ in flight, RELEASE");
            assertThat(run.callers().get(1).outcome()).isEqualTo("replayed");
        }
        if (policy == LabPolicy.WAIT) {
            assertThat(run.callers().get(1).outcome()).isEqualTo("waited");
        }
    }
}
