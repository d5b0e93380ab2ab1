package dev.idemlab.lab.nemesis;

import dev.idemlab.lab.faults.FaultKind;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.infra.StoreBackends;
import dev.idemlab.lab.scenario.HolderMain;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Holders in child JVMs under the nemesis, on a Redis the lab starts: the schedule draws only the
 * holder faults, each child holds a fresh key that in-process retries also send, is paused past its
 * lease or killed during its action, shows up in the history as a call of its own, and is gone when
 * the run returns; the checker passes, a second charge on such a key explained by its fault alone.
 */
class HolderFaultsTest {

    @Test
    void holdersPausedOrKilledAreInjectedReapedAndChecked() throws Exception {
        NemesisSettings settings = new NemesisSettings(seed(), Duration.ofSeconds(10),
                NemesisSettings.DEFAULT_LEASE, false, Sabotage.NONE);
        System.out.println("holder faults on redis: seed " + settings.seed());
        NemesisResult result;
        try (StoreBackend backend = StoreBackends.open("redis", ProvisioningOptions.defaults())) {
            result = NemesisRun.run(backend, settings, line -> System.out.println("  " + line),
                    FaultKind::onChildHolder);
        }
        String report = NemesisReport.text(result);
        System.out.println(report);
        List<FaultEvent> faults = result.history().faults();
        assertThat(faults).as(report).isNotEmpty()
                .allSatisfy(fault -> assertThat(fault.kind().onChildHolder()).isTrue())
                .anySatisfy(fault -> assertThat(fault.injected()).isTrue());
        assertThat(result.history().calls()).as(report).filteredOn(CallRecord::child)
                .hasSize(faults.size()).anySatisfy(child -> assertThat(child.actionStartedAt()).isPositive());
        assertThat(holdersLeft()).as("child JVM holders left running").isEmpty();
        assertThat(result.passed()).as(report).isTrue();
    }

    /** A seed that held at the commit that added it and draws both kinds; {@code -Dnemesis.seed} as elsewhere. */
    private static long seed() {
        String given = System.getProperty("nemesis.seed");
        return given == null || given.isBlank() ? 4602832579434458938L : NemesisOnEveryStoreTest.seed();
    }

    /** This JVM's descendants that run the holder's main class. */
    private static List<ProcessHandle> holdersLeft() {
        return ProcessHandle.current().descendants().filter(ProcessHandle::isAlive)
                .filter(process -> process.info().commandLine().orElse("").contains(HolderMain.class.getName()))
                .toList();
    }
}
