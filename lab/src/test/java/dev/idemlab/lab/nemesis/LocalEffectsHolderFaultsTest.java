package dev.idemlab.lab.nemesis;

import dev.idemlab.lab.faults.FaultKind;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.infra.StoreBackends;
import dev.idemlab.lab.load.LoadKeys;
import dev.idemlab.provider.Charge;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Holders of the order workflow in child JVMs under the nemesis, on a real PostgreSQL: the schedule
 * draws only the holder faults; each child places its order through the same workflow as the run's
 * callers, stops at a step boundary (its order written, its charge made, its charge recorded) and is
 * killed there, or paused past its lease and let go on, while the key's retries in this process take
 * it over and resume its steps. The orders table is read back beside every answer, and the provider,
 * which deduplicates on the steps' keys, holds one charge per key: a killed holder's charge and its
 * recovery's are one. {@code -Dnemesis.seed} replays another seed.
 */
class LocalEffectsHolderFaultsTest {

    @Test
    void workflowHoldersStoppedAtAStepBoundaryAreRecoveredWithOneOrderAndOneCharge() throws Exception {
        NemesisSettings settings = new NemesisSettings(seed(), Duration.ofSeconds(10), NemesisSettings.DEFAULT_LEASE,
                true, Sabotage.NONE).withLocalEffects();
        System.out.println("workflow holder faults on postgres: seed " + settings.seed());
        NemesisResult result;
        try (StoreBackend backend = StoreBackends.open("postgres", ProvisioningOptions.defaults())) {
            result = NemesisRun.run(backend, settings, line -> System.out.println("  " + line),
                    FaultKind::onChildHolder);
        }
        String report = NemesisReport.text(result);
        System.out.println(report);
        List<FaultEvent> faults = result.history().faults();
        assertThat(faults).as(report).isNotEmpty()
                .allSatisfy(fault -> assertThat(fault.kind().onChildHolder()).isTrue())
                .anySatisfy(fault -> assertThat(fault.injected()).isTrue());
        List<CallRecord> children = result.history().calls().stream().filter(CallRecord::child).toList();
        for (CallRecord child : children) {
            List<CallRecord> key = result.history().calls().stream().filter(call -> call.key == child.key).toList();
            List<String> ledger = result.history().ledger().stream()
                    .filter(charge -> charge.orderId().equals(LoadKeys.orderId(child.key))).map(Charge::id).toList();
            assertThat(ledger).as("the provider's charges for key %d, whose holder got %s", child.key, child.answer())
                    .hasSizeLessThanOrEqualTo(1);
            if (child.charged() != null) {
                assertThat(ledger).as("key %d: the child's charge is the key's one", child.key)
                        .containsExactly(child.charged());
                assertThat(key).as("key %d: every answer is the child's charge", child.key)
                        .filteredOn(call -> call.chargeId() != null)
                        .allSatisfy(call -> assertThat(call.chargeId()).isEqualTo(child.charged()));
            }
        }
        assertThat(result.history().calls()).as("a retry that recovered a key a child held, with its order")
                .anySatisfy(call -> {
                    assertThat(call.child()).isFalse();
                    assertThat(call.order()).isNotNull();
                    assertThat(children).extracting(child -> child.key).contains(call.key);
                });
        assertThat(result.passed()).as(report).isTrue();
    }

    /** A seed that draws both kinds of holder fault; {@code -Dnemesis.seed} as elsewhere. */
    private static long seed() {
        String given = System.getProperty("nemesis.seed");
        return given == null || given.isBlank() ? 4602832579434458938L : NemesisOnEveryStoreTest.seed();
    }
}
