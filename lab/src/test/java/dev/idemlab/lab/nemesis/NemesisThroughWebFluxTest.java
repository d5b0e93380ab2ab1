package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.Outcome;
import dev.idemlab.lab.infra.MemoryBackend;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.infra.StoreBackends;
import dev.idemlab.lab.load.LoadKeys;
import dev.idemlab.provider.Charge;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The same seeded workload, faults and per-client checks as through the servlet filter, sent to the
 * WebFlux filter on Reactor Netty: on the memory store nothing is found, whichever clients send the
 * keys (three bearer clients; an anonymous one beside a principal named {@code anonymous}) and with a
 * provider that deduplicates on the downstream key, and on Redis under its faults; the filter with its
 * scoping broken on purpose (every client in one scope) is flagged, with the client that received
 * another's response named.
 * The history reads the filter from inside (the action's start and fence, the coordinator's outcome, the
 * end of a holder's attempt), so those are asserted to be there, not only the verdict.
 */
class NemesisThroughWebFluxTest {

    private static final Duration SHORT = Duration.ofSeconds(3);

    @Test
    void throughWebFluxEveryClientGetsItsOwnChargeForTheSharedKey() throws Exception {
        NemesisResult result = run(settings());
        String report = NemesisReport.text(result);
        assertThat(result.passed()).as(report).isTrue();
        assertThat(report).contains("through: webflux (the WebFlux filter on Reactor Netty; clients client-a, "
                + "client-b, client-c").contains("--through webflux");
        NemesisHistory history = result.history();
        assertThat(history.calls()).extracting(CallRecord::client).containsOnly("client-a", "client-b", "client-c");
        Set<String> firstOrders = history.ledger().stream().map(Charge::orderId)
                .filter(order -> HttpClients.requestOf(LoadKeys.indexOfOrder(order)) == 0).collect(Collectors.toSet());
        assertThat(firstOrders).as(report).containsExactlyInAnyOrder(LoadKeys.orderId(0),
                LoadKeys.orderId(HttpClients.STRIDE), LoadKeys.orderId(2 * HttpClients.STRIDE));
        // What only the hooks inside the WebFlux server can tell the history.
        assertThat(history.calls()).as("fences read from the filter's context").anyMatch(call -> call.fence() > 0);
        assertThat(history.calls()).as("outcomes the coordinator gave the filter")
                .anyMatch(call -> call.outcome() == Outcome.EXECUTED && call.attemptEndSeenByServer());
        assertThat(history.calls()).as("replays, told by the filter's header")
                .anyMatch(call -> call.outcome() == Outcome.REPLAYED);
    }

    @Test
    void aPrincipalNamedAnonymousNeverSharesTheAnonymousClientsScope() throws Exception {
        NemesisResult result = run(settings().with(Clients.NAMED_ANONYMOUS));
        String report = NemesisReport.text(result);
        assertThat(result.passed()).as(report).isTrue();
        assertThat(report).contains("--clients named-anonymous");
        assertThat(result.history().calls()).as(report)
                .anyMatch(call -> "anonymous".equals(call.client()) && call.chargeId() != null)
                .anyMatch(call -> HttpClients.TOKENLESS.equals(call.client()) && call.chargeId() != null);
    }

    @Test
    void withAProviderThatDeduplicatesOnTheDownstreamKeyEveryClientIsCharged() throws Exception {
        NemesisSettings settings = new NemesisSettings(NemesisOnEveryStoreTest.seed(), SHORT,
                NemesisSettings.DEFAULT_LEASE, true, Sabotage.NONE, Through.WEBFLUX, Clients.BEARER);
        NemesisResult result = run(settings);
        String report = NemesisReport.text(result);
        assertThat(result.passed()).as(report).isTrue();
        assertThat(result.history().ledger()).as(report)
                .anyMatch(charge -> HttpClients.clientOf(LoadKeys.indexOfOrder(charge.orderId())) == 1)
                .anyMatch(charge -> HttpClients.clientOf(LoadKeys.indexOfOrder(charge.orderId())) == 2);
    }

    /** On Redis the store's faults reach the WebFlux filter's coordinators as they reach the bare one. */
    @Test
    void onRedisNothingIsFound() throws Exception {
        NemesisResult result;
        try (StoreBackend redis = StoreBackends.open("redis", ProvisioningOptions.defaults())) {
            result = NemesisRun.run(redis, settings(), line -> { });
        }
        String report = NemesisReport.text(result);
        System.out.println(report);
        assertThat(result.passed()).as(report).isTrue();
        assertThat(result.history().faults()).as("faults injected").isNotEmpty();
        assertThat(result.history().ledger()).as(report).isNotEmpty();
    }

    @Test
    void aWebFluxFilterThatPutsEveryClientInOneScopeIsFlagged() throws Exception {
        NemesisSettings broken = new NemesisSettings(NemesisOnEveryStoreTest.seed(), SHORT,
                NemesisSettings.DEFAULT_LEASE, false, Sabotage.SHARED_SCOPE, Through.WEBFLUX, Clients.BEARER);
        NemesisResult result = run(broken);
        String report = NemesisReport.text(result);
        assertThat(result.passed()).as(report).isFalse();
        assertThat(result.verdict().violations()).as(report)
                .anySatisfy(violation -> assertThat(violation.rule()).isEqualTo("foreign-response"));
        assertThat(report).contains("--through webflux").contains("--sabotage shared-scope")
                .contains("seed " + broken.seed());
    }

    @Test
    void theResultCacheIsRefusedThroughWebFluxNamingWhy() {
        assertThatThrownBy(() -> new NemesisSettings(1, SHORT, NemesisSettings.DEFAULT_LEASE, false,
                Sabotage.RESULT_CACHE, Through.WEBFLUX, Clients.BEARER))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("derives no downstream key");
    }

    private static NemesisSettings settings() {
        long seed = NemesisOnEveryStoreTest.seed();
        System.out.println("nemesis through webflux: seed " + seed);
        return new NemesisSettings(seed, SHORT, NemesisSettings.DEFAULT_LEASE, false, Sabotage.NONE, Through.WEBFLUX,
                Clients.BEARER);
    }

    private static NemesisResult run(NemesisSettings settings) throws Exception {
        NemesisResult result;
        try (MemoryBackend backend = new MemoryBackend()) {
            result = NemesisRun.run(backend, settings, line -> { });
        }
        System.out.println(NemesisReport.text(result).lines().limit(40).collect(Collectors.joining(System.lineSeparator())));
        return result;
    }
}
