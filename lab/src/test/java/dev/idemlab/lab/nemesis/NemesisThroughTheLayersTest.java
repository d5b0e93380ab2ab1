package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.Outcome;
import dev.idemlab.lab.infra.MemoryBackend;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.infra.StoreBackends;
import dev.idemlab.lab.load.LoadKeys;
import dev.idemlab.provider.Charge;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The same seeded workload and faults through the layers users adopt: the {@code @Idempotent} proxy and
 * the HTTP filter with several clients sharing their keys, on the memory store, find nothing; the HTTP
 * filter with its scoping broken on purpose (every client in one scope) is flagged, with the client
 * that received another's response named. On Redis, whose faults reach the filter's and the proxy's
 * coordinators as they reach the bare one, the proxy and the filter find nothing either.
 */
class NemesisThroughTheLayersTest {

    private static final Duration SHORT = Duration.ofSeconds(3);

    @Test
    void throughTheProxyNothingIsFound() throws Exception {
        NemesisResult result = run(settings(Through.PROXY));
        String report = NemesisReport.text(result);
        assertThat(result.passed()).as(report).isTrue();
        assertThat(report).contains("through: proxy").contains("--through proxy");
        NemesisHistory history = result.history();
        assertThat(history.ledger()).as(report).isNotEmpty();
        assertThat(history.calls()).as("async calls through the proxy").anyMatch(call -> call.async && call.answered());
        assertThat(history.calls()).as("replays through the proxy")
                .anyMatch(call -> call.outcome() == Outcome.REPLAYED);
        assertThat(history.calls()).as("fences read from the proxy's context").anyMatch(call -> call.fence() > 0);
    }

    @Test
    void throughHttpEveryClientGetsItsOwnChargeForTheSharedKey() throws Exception {
        NemesisResult result = run(settings(Through.HTTP));
        String report = NemesisReport.text(result);
        // Both passes: the provider charging whatever reaches it, then, where something was explained,
        // deduplicating on the downstream key the demo passes it (one per client and key).
        assertThat(result.passed()).as(report).isTrue();
        assertThat(report).contains("through: http (clients client-a, client-b, client-c").contains("--through http");
        NemesisHistory history = result.history();
        assertThat(history.calls()).extracting(CallRecord::client).containsOnly("client-a", "client-b", "client-c");
        // The first request's key was sent by every client, and each one's own order was charged once.
        Set<String> firstOrders = history.ledger().stream().map(Charge::orderId)
                .filter(order -> HttpClients.requestOf(LoadKeys.indexOfOrder(order)) == 0).collect(Collectors.toSet());
        assertThat(firstOrders).as(report).containsExactlyInAnyOrder(LoadKeys.orderId(0),
                LoadKeys.orderId(HttpClients.STRIDE), LoadKeys.orderId(2 * HttpClients.STRIDE));
    }

    @Test
    void throughHttpWithAnAnonymousClientNothingIsFound() throws Exception {
        NemesisResult result = run(settings(Through.HTTP).with(Clients.ANONYMOUS));
        String report = NemesisReport.text(result);
        assertThat(result.passed()).as(report).isTrue();
        assertThat(report).contains("--clients anonymous");
        assertThat(result.history().calls()).as(report)
                .anyMatch(call -> HttpClients.TOKENLESS.equals(call.client()) && call.chargeId() != null);
    }

    @ParameterizedTest(name = "through {0} on Redis nothing is found")
    @EnumSource(value = Through.class, names = {"PROXY", "HTTP"})
    void onRedisNothingIsFound(Through through) throws Exception {
        NemesisResult result;
        try (StoreBackend redis = StoreBackends.open("redis", ProvisioningOptions.defaults())) {
            result = NemesisRun.run(redis, settings(through), line -> { });
        }
        String report = NemesisReport.text(result);
        System.out.println(report);
        assertThat(result.passed()).as(report).isTrue();
        assertThat(result.history().faults()).as("faults injected").isNotEmpty();
        assertThat(result.history().ledger()).as(report).isNotEmpty();
    }

    @Test
    void withAProviderThatDeduplicatesOnTheDownstreamKeyEveryClientIsCharged() throws Exception {
        NemesisSettings settings = new NemesisSettings(seed(), SHORT, NemesisSettings.DEFAULT_LEASE, true,
                Sabotage.NONE, Through.HTTP, Clients.BEARER);
        NemesisResult result = run(settings);
        String report = NemesisReport.text(result);
        assertThat(result.passed()).as(report).isTrue();
        assertThat(result.history().ledger()).as(report)
                .anyMatch(charge -> HttpClients.clientOf(LoadKeys.indexOfOrder(charge.orderId())) == 1);
    }

    @Test
    void aPrincipalNamedAnonymousNeverSharesTheAnonymousClientsScope() throws Exception {
        NemesisResult result = run(settings(Through.HTTP).with(Clients.NAMED_ANONYMOUS));
        String report = NemesisReport.text(result);
        assertThat(result.passed()).as(report).isTrue();
        assertThat(result.history().calls()).as(report)
                .anyMatch(call -> "anonymous".equals(call.client()) && call.chargeId() != null);
    }

    @Test
    void aFilterThatPutsEveryClientInOneScopeIsFlagged() throws Exception {
        NemesisSettings broken = new NemesisSettings(seed(), SHORT, NemesisSettings.DEFAULT_LEASE, false,
                Sabotage.SHARED_SCOPE, Through.HTTP, Clients.BEARER);
        NemesisResult result = run(broken);
        String report = NemesisReport.text(result);
        assertThat(result.passed()).as(report).isFalse();
        assertThat(result.verdict().violations()).as(report)
                .anySatisfy(violation -> assertThat(violation.rule()).isEqualTo("foreign-response"));
        assertThat(report).contains("--sabotage shared-scope").contains("seed " + broken.seed());
    }

    private static NemesisSettings settings(Through through) {
        return new NemesisSettings(seed(), SHORT, NemesisSettings.DEFAULT_LEASE, false, Sabotage.NONE, through,
                Clients.BEARER);
    }

    private static long seed() {
        long seed = NemesisOnEveryStoreTest.seed();
        System.out.println("nemesis through the layers: seed " + seed);
        return seed;
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
