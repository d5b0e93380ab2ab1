package dev.idemlab.lab.scenario;

import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.infra.StoreBackends;
import dev.idemlab.lab.policy.LabPolicy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The failure lab's scenarios on real servers: every verdict is the provider's ledger. The child-JVM
 * scenarios really start, stop and kill a JVM of their own; afterwards {@code ps} must not find it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FailureLabTest {

    private final Map<String, StoreBackend> backends = new LinkedHashMap<>();

    @BeforeAll
    void startServers() {
        for (String name : StoreBackends.NAMES) {
            backends.put(name, StoreBackends.open(name, ProvisioningOptions.defaults()));
        }
    }

    @AfterAll
    void stopServers() {
        backends.values().forEach(StoreBackend::close);
    }

    private ScenarioContext context(String store) {
        return new ScenarioContext(backends.get(store), ScenarioSettings.defaults(), CoordinatorFactory.LIBRARY);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"redis", "postgres"})
    void aHolderKilledAfterTheChargeCostsASecondChargeUnlessTheKeyGoesDownstream(String store) throws Exception {
        ScenarioRun withoutKey = new CrashMidChargeScenario(false).run(context(store), LabPolicy.WAIT);
        assertThat(withoutKey.charges()).containsExactly("ch_1", "ch_2");
        assertThat(withoutKey.responses()).containsExactly("killed after ch_1", "ch_2");
        assertHolderGone(withoutKey);

        ScenarioRun withKey = new CrashMidChargeScenario(true).run(context(store), LabPolicy.WAIT);
        assertThat(withKey.charges()).containsExactly("ch_1");
        assertThat(withKey.responses()).containsExactly("killed after ch_1", "ch_1");
        assertHolderGone(withKey);
    }

    @Test
    void underRaiseTheRetryOfACrashedHolderIsTurnedAwayUntilTheLeaseEnds() throws Exception {
        ScenarioRun run = new CrashMidChargeScenario(true).run(context("redis"), LabPolicy.RAISE);
        assertThat(run.responses()).containsExactly("killed after ch_1", FailureExpectations.IN_PROGRESS, "ch_1");
        assertThat(run.charges()).containsExactly("ch_1");
        assertHolderGone(run);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"redis", "postgres"})
    void aHolderPausedPastItsLeaseIsRefusedByTheFenceCheck(String store) throws Exception {
        ScenarioRun fenced = new PausedHolderScenario(true).run(context(store), LabPolicy.WAIT);
        assertThat(fenced.charges()).containsExactly("ch_1");
        assertThat(fenced.responses()).containsExactly("StaleFenceException", "ch_1");
        assertHolderGone(fenced);

        ScenarioRun unfenced = new PausedHolderScenario(false).run(context(store), LabPolicy.WAIT);
        assertThat(unfenced.charges()).containsExactly("ch_1", "ch_2");
        assertThat(unfenced.callers().get(0).outcome()).isEqualTo("lease-lost");
        assertHolderGone(unfenced);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"memory", "redis", "postgres"})
    void withoutTheHeartbeatALongChargeIsChargedTwiceWithItOnce(String store) throws Exception {
        ScenarioRun off = new LeaseOverrunScenario(false).run(context(store), LabPolicy.WAIT);
        assertThat(off.charges()).hasSize(2);
        assertThat(off.responses()).doesNotHaveDuplicates();
        assertThat(off.timeline()).anyMatch(e -> e.message().startsWith("heartbeat off"));

        ScenarioRun on = new LeaseOverrunScenario(true).run(context(store), LabPolicy.WAIT);
        assertThat(on.charges()).containsExactly("ch_1");
        assertThat(on.responses()).containsExactly("ch_1", "ch_1");
        assertThat(on.timeline()).anyMatch(e -> e.to().equals(Timeline.STORE) && e.message().startsWith("renew"));
    }

    @Test
    void anAmbiguousProviderTimeoutIsChargedOnceOnlyWithTheDownstreamKeyOverHttp() throws Exception {
        ScenarioContext http = context("memory").withProvider(ProviderChoice.HTTP);
        ScenarioRun off = new ProviderAmbiguousScenario(false).run(http, LabPolicy.WAIT);
        assertThat(off.charges()).containsExactly("ch_1", "ch_2");
        ScenarioRun on = new ProviderAmbiguousScenario(true).run(http, LabPolicy.WAIT);
        assertThat(on.charges()).containsExactly("ch_1");
        assertThat(on.responses()).containsExactly(FailureExpectations.PROVIDER_TIMEOUT, "ch_1");
        assertThat(on.settings()).containsEntry("provider", "http");
    }

    @Test
    void aKeyIsScopedPerOperation() throws Exception {
        assertThat(new ScopeScenario(false).run(context("memory"), LabPolicy.WAIT).charges()).containsExactly("ch_1", "ch_2");
        ScenarioRun one = new ScopeScenario(true).run(context("memory"), LabPolicy.WAIT);
        assertThat(one.charges()).containsExactly("ch_1");
        assertThat(one.callers().get(1).outcome()).isEqualTo("replayed");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"redis", "postgres"})
    void failingOpenWithTheDownstreamKeyChargesOnceAlthoughTheStoreIsGone(String store) {
        ScenarioRun off = new StoreDownScenario(false).run(context(store), LabPolicy.WAIT);
        assertThat(off.charges()).containsExactly("ch_1", "ch_2");
        ScenarioRun on = new StoreDownScenario(true).run(context(store), LabPolicy.WAIT);
        assertThat(on.charges()).containsExactly("ch_1");
        assertThat(on.responses()).containsExactly("ch_1", "ch_1");
        assertThat(on.storageErrors()).isPositive();
        assertThat(on.timeline()).anyMatch(e -> e.from().equals(Timeline.STORE) && e.message().startsWith("failed"));
    }

    @Test
    void everyScenarioDrawsTheStoreOnItsTimeline() throws Exception {
        ScenarioRun run = new InFlightScenario().run(context("memory"), LabPolicy.WAIT);
        assertThat(run.timeline()).anyMatch(e -> e.to().equals(Timeline.STORE) && e.message().startsWith("reserve"))
                .anyMatch(e -> e.from().equals(Timeline.STORE) && e.message().startsWith("acquired, fence"))
                .anyMatch(e -> e.from().equals(Timeline.STORE) && e.message().startsWith("completed"));
    }

    /** {@code ps -p PID} exits 1 when no such process exists. */
    static void assertHolderGone(ScenarioRun run) throws Exception {
        long pid = ((Number) run.settings().get("holderPid")).longValue();
        Process ps = new ProcessBuilder("ps", "-p", Long.toString(pid)).redirectErrorStream(true).start();
        String listing = new String(ps.getInputStream().readAllBytes());
        assertThat(ps.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(ps.exitValue()).as("ps -p %d: %s", pid, listing).isEqualTo(1);
    }
}
