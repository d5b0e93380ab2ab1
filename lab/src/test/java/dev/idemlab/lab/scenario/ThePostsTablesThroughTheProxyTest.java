package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.StoreFailureMode;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.infra.StoreBackends;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.lab.report.ReportFormat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 26: the post's four tables through an annotated interface ({@link AnnotatedCharges} on
 * {@code Idempotency.proxy}) on every store, each beside the same scenario calling the coordinator
 * directly on the same store. The check is the provider's ledger: under wait and raise the proxy
 * charges once where the direct call charges once, and every caller gets the same answer with the
 * same number of charges made at that moment. The result cache (run) has no proxy and is refused.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ThePostsTablesThroughTheProxyTest {

    /** Where the post's timing matters (the retry must land while the first charge is inside the provider). */
    private static final Duration POST_LATENCY = ScenarioSettings.DEFAULT_LATENCY;
    /** Sequential scenarios: nothing races, so a short provider keeps the test short. */
    private static final Duration SHORT_LATENCY = Duration.ofMillis(20);
    /** How often a race is run again when either run missed its staging (see {@link #stagedAsScripted}). */
    private static final int STAGING_ATTEMPTS = 3;
    private static final List<LabPolicy> LIBRARY_POLICIES = List.of(LabPolicy.WAIT, LabPolicy.RAISE);

    private final Map<String, StoreBackend> backends = new LinkedHashMap<>();

    /**
     * One row of a post's table: who called, what came back, and the charges on the provider's ledger
     * and the storage errors the coordinator counted by the time it came back.
     */
    record Row(String caller, String response, int chargesAfter, long storageErrorsAfter) { }

    @BeforeAll
    void startServers() {
        for (String name : List.of("memory", "redis", "postgres")) {
            backends.put(name, StoreBackends.open(name, ProvisioningOptions.defaults()));
        }
    }

    @AfterAll
    void stopServers() {
        backends.values().forEach(StoreBackend::close);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"memory", "redis", "postgres"})
    void inFlightThroughTheProxyChargesOnceAndAnswersAsTheCoordinatorDoes(String store) throws Exception {
        ScenarioRun resultCache = run(new InFlightScenario(), store, LabPolicy.RUN, CallThrough.COORDINATOR, POST_LATENCY);
        assertThat(resultCache.charges()).as("the baseline still double-charges on " + store).hasSize(2);
        assertThatThrownBy(() -> run(new InFlightScenario(), store, LabPolicy.RUN, CallThrough.PROXY, POST_LATENCY))
                .isInstanceOf(CannotStageException.class).hasMessageContaining("the result cache (policy run)")
                .hasMessageContaining("Idempotency.proxy wraps the library's coordinator");
        for (LabPolicy policy : LIBRARY_POLICIES) {
            assertSameTable(new InFlightScenario(), store, policy, POST_LATENCY);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"memory", "redis", "postgres"})
    void keyReuseThroughTheProxyReplaysThenRefusesAsTheCoordinatorDoes(String store) throws Exception {
        for (LabPolicy policy : LIBRARY_POLICIES) {
            assertSameTable(new KeyReuseScenario(), store, policy, SHORT_LATENCY);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"memory", "redis", "postgres"})
    void aProviderTimeoutThroughTheProxyIsNotCachedAndTheRetryChargesOnce(String store) throws Exception {
        for (LabPolicy policy : LIBRARY_POLICIES) {
            ScenarioRun proxied = assertSameTable(new ProviderTimeoutScenario(), store, policy, SHORT_LATENCY);
            assertThat(proxied.callers().get(0).chargesAfter()).as("the timed-out first call charged nothing").isZero();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"redis", "postgres"})
    void theStoreDownThroughTheProxyFailsOpenAsTheCoordinatorDoes(String store) throws Exception {
        ScenarioRun proxied = assertSameTable(new StoreDownScenario(), store, LabPolicy.WAIT, SHORT_LATENCY);
        assertThat(proxied.storageErrors()).as("storage errors the proxy's coordinator counted").isPositive();
    }

    @Test
    void theMemoryStoreCannotGoDownEitherWay() {
        for (CallThrough how : CallThrough.values()) {
            assertThatThrownBy(() -> run(new StoreDownScenario(), "memory", LabPolicy.WAIT, how, SHORT_LATENCY))
                    .as(how.name()).isInstanceOf(CannotStageException.class)
                    .hasMessageContaining("cannot become unreachable");
        }
    }

    /**
     * Runs {@code scenario} directly and through the proxy on the same store under {@code policy}, and
     * compares what the ledger says: the same rows and the same charges, which must be one charge.
     *
     * @return the run through the proxy
     */
    private ScenarioRun assertSameTable(Scenario scenario, String store, LabPolicy policy, Duration latency)
            throws InterruptedException {
        String what = scenario.name() + " under " + policy + " on " + store;
        ScenarioRun direct;
        ScenarioRun proxied;
        int attempt = 0;
        do {
            direct = run(scenario, store, policy, CallThrough.COORDINATOR, latency);
            proxied = run(scenario, store, policy, CallThrough.PROXY, latency);
            // One charge holds however the race was staged: checked on every pair, a rerun pair included.
            assertThat(direct.charges()).as("the ledger of " + what + ", called directly").containsExactly("ch_1");
            assertThat(proxied.charges()).as("the ledger of " + what + ", through the proxy")
                    .isEqualTo(direct.charges());
        } while (++attempt < STAGING_ATTEMPTS && !(stagedAsScripted(direct) && stagedAsScripted(proxied)));
        // The figures go into the test's report, so that a reader sees the two tables side by side.
        System.out.println(ReportFormat.TABLE.render(List.of(direct, proxied)));
        // Only the rows depend on the staging (who was told 409): compared once a pair ran as scripted.
        assertThat(stagedAsScripted(direct) && stagedAsScripted(proxied))
                .as("in " + STAGING_ATTEMPTS + " pairs of " + what + ", none ran as scripted (A's reserve first, "
                        + "every retry before A's answer): the machine was too busy to compare the rows").isTrue();
        assertThat(rows(proxied)).as("what each caller got through the proxy, " + what).isEqualTo(rows(direct));
        assertThat(proxied.callers()).as("a proxy's caller sees the value, not the coordinator's outcome")
                .allSatisfy(caller -> assertThat(caller.outcome()).isIn(ChargeClient.PROXY_RETURNED, "error"));
        assertThat(proxied.settings()).containsEntry("callThrough", "proxy");
        return proxied;
    }

    /**
     * Whether a race ran as its script says, read off the run's own timeline: A's reserve acquired the
     * key, and every retry started before A had its answer. On a busy machine A's reserve can land after
     * B's (then B holds the key and A is the one told 409 under raise): a staging miss of either run, not
     * a difference between the two ways of calling, so the pair is run again.
     */
    private static boolean stagedAsScripted(ScenarioRun run) {
        if (!run.scenario().equals("in-flight")) {
            return true;
        }
        String firstAcquired = run.timeline().stream()
                .filter(event -> event.reply() && event.message().startsWith("acquired"))
                .map(TimelineEvent::message).findFirst().orElse("");
        return firstAcquired.endsWith("(for A)") && InFlightScenario.lateCallers(run.callers()) == 0;
    }

    private static List<Row> rows(ScenarioRun run) {
        return run.callers().stream().map(c -> new Row(c.name(), c.response(), c.chargesAfter(), c.storageErrorsAfter())).toList();
    }

    private ScenarioRun run(Scenario scenario, String store, LabPolicy policy, CallThrough how, Duration latency)
            throws InterruptedException {
        ScenarioSettings settings = new ScenarioSettings(latency, ScenarioSettings.DEFAULT_RETRY_AT,
                ScenarioSettings.DEFAULT_CALLERS, ScenarioSettings.DEFAULT_LEASE, ScenarioSettings.DEFAULT_KEY,
                StoreFailureMode.FAIL_OPEN);
        return scenario.run(new ScenarioContext(backends.get(store), settings, CoordinatorFactory.LIBRARY)
                .withCallThrough(how), policy);
    }
}
