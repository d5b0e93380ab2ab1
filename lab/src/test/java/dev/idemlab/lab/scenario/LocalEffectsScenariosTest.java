package dev.idemlab.lab.scenario;

import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.infra.StoreBackends;
import dev.idemlab.lab.policy.LabPolicy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 27 on a real PostgreSQL: an order placement whose holder, in a child JVM, is SIGKILLed at each
 * step boundary, or paused past its lease while a retry takes the key over. Every figure is read back
 * from the orders table and the provider's and mailer's ledgers; afterwards the child must be gone.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LocalEffectsScenariosTest {

    private StoreBackend postgres;

    @BeforeAll
    void startServer() {
        postgres = StoreBackends.open("postgres", ProvisioningOptions.defaults());
    }

    @AfterAll
    void stopServer() {
        if (postgres != null) {
            postgres.close();
        }
    }

    private ScenarioRun run(OrderScenario.Fault fault, String mode, String boundary) throws Exception {
        ScenarioRun run = new OrderScenario(fault, mode, boundary).run(
                new ScenarioContext(postgres, ScenarioSettings.defaults(), CoordinatorFactory.LIBRARY), LabPolicy.WAIT);
        FailureLabTest.assertHolderGone(run);
        return run;
    }

    @Test
    void theRecordCommittedWithTheOrderLeavesOneOfEachWhereverTheHolderIsKilled() throws Exception {
        for (String mode : new String[] {"TRANSACTIONAL", "WORKFLOW"}) {
            for (String boundary : OrderScenario.boundaries()) {
                ScenarioRun run = run(OrderScenario.Fault.CRASH, mode, boundary);
                assertThat(run.settings()).as("%s killed after %s", mode, boundary)
                        .containsEntry("orders", 1).containsEntry("receipts", 1);
                assertThat(run.charges()).as("%s killed after %s", mode, boundary).containsExactly("ch_1");
                assertThat(run.callers().get(0).response()).isEqualTo("killed after " + boundary);
                assertThat(Expectations.check(run).passed()).as(Expectations.check(run).message()).isTrue();
            }
        }
    }

    @Test
    void withoutTheRecordInTheOrdersTransactionAKilledHolderLeavesASecondOrder() throws Exception {
        ScenarioRun cache = run(OrderScenario.Fault.CRASH, "RESULT_CACHE", "charge_created");
        assertThat(cache.settings()).containsEntry("orders", 2);
        assertThat(cache.charges()).containsExactly("ch_1", "ch_2");

        ScenarioRun reservation = run(OrderScenario.Fault.CRASH, "RESERVATION", "order_created");
        assertThat(reservation.settings()).containsEntry("orders", 2);
        assertThat(reservation.charges()).containsExactly("ch_1");

        ScenarioRun downstream = run(OrderScenario.Fault.CRASH, "DOWNSTREAM_KEY", "charge_created");
        assertThat(downstream.settings()).containsEntry("orders", 2);
        assertThat(downstream.charges()).containsExactly("ch_1");
        for (ScenarioRun run : new ScenarioRun[] {cache, reservation, downstream}) {
            assertThat(Expectations.check(run).passed()).as(Expectations.check(run).message()).isTrue();
        }
    }

    /**
     * Issue 42: the holder is SIGKILLed inside the workflow's charge step, once its started marker committed
     * and before it called the provider, or once the provider answered and before the step's recovery
     * point; the provider does not deduplicate. Re-run charges twice when the charge had landed (shown, not
     * hidden), ask first charges once, stop charges no more than the holder did and answers every retry
     * "unknown outcome at step charge_created". Read back from the ledgers and the orders table.
     */
    @Test
    void aChargeOfUnknownOutcomeIsSettledByItsStepsPolicyWhereverInsideTheStepTheHolderIsKilled() throws Exception {
        for (String boundary : new String[] {"charge_started", "charge_answered"}) {
            boolean answered = boundary.equals("charge_answered");
            ScenarioRun rerun = run(OrderScenario.Fault.CRASH, "WORKFLOW_RERUN", boundary);
            assertThat(rerun.charges()).as("re-run, killed after %s", boundary)
                    .containsExactlyElementsOf(answered ? List.of("ch_1", "ch_2") : List.of("ch_1"));
            assertThat(rerun.settings()).containsEntry("orders", 1).containsEntry("receipts", 1)
                    .containsEntry("deduplicatingProvider", false);

            ScenarioRun askFirst = run(OrderScenario.Fault.CRASH, "WORKFLOW_ASK_FIRST", boundary);
            assertThat(askFirst.charges()).as("ask first, killed after %s", boundary).containsExactly("ch_1");
            assertThat(askFirst.settings()).containsEntry("orders", 1).containsEntry("receipts", 1);
            assertThat(askFirst.callers().get(1).response()).contains("charge_created=ch_1");

            ScenarioRun stop = run(OrderScenario.Fault.CRASH, "WORKFLOW_STOP", boundary);
            assertThat(stop.charges()).as("stop, killed after %s", boundary)
                    .containsExactlyElementsOf(answered ? List.of("ch_1") : List.of());
            assertThat(stop.settings()).containsEntry("orders", 1).containsEntry("receipts", 0);
            assertThat(stop.callers()).hasSize(3);
            assertThat(stop.callers().subList(1, 3)).extracting(CallerResult::response).containsOnly(
                    "StepOutcomeUnknownException (unknown outcome at step charge_created)");
            for (ScenarioRun each : new ScenarioRun[] {rerun, askFirst, stop}) {
                assertThat(each.callers().get(0).response()).isEqualTo("killed after " + boundary);
                assertThat(Expectations.check(each).passed()).as(Expectations.check(each).message()).isTrue();
            }
        }
    }

    @Test
    void aHolderPausedPastItsLeaseCommitsNoOrderOnceTheKeyWasTakenOver() throws Exception {
        ScenarioRun fenced = run(OrderScenario.Fault.PAUSE, "TRANSACTIONAL", "order_created");
        assertThat(fenced.callers().get(0).response()).isEqualTo("IdempotencyFencedException");
        assertThat(fenced.settings()).containsEntry("orders", 1).containsEntry("receipts", 1);
        assertThat(fenced.charges()).containsExactly("ch_1");

        ScenarioRun unfenced = run(OrderScenario.Fault.PAUSE, "DOWNSTREAM_KEY", "order_created");
        assertThat(unfenced.settings()).containsEntry("orders", 2);
        assertThat(unfenced.charges()).containsExactly("ch_1");
        for (ScenarioRun run : new ScenarioRun[] {fenced, unfenced}) {
            assertThat(Expectations.check(run).passed()).as(Expectations.check(run).message()).isTrue();
        }
    }
}
