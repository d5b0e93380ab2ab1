package dev.idemlab.lab.http;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.provider.FakePaymentProvider;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The demo server's own promises: its published expiry policy, and the unfiltered baseline. */
class DemoServerTest {

    private final HttpClient http = HttpClient.newHttpClient();
    private final FakePaymentProvider provider = FakePaymentProvider.builder().latency(Duration.ZERO).build();

    private String docs(DemoServer server) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(server.uri() + "/docs/idempotency")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    @Test
    void theDocsPublishTheExpiryPolicyTheServerRunsWith() throws Exception {
        IdempotencyConfig config = IdempotencyConfig.custom().lease(Duration.ofSeconds(20)).ttl(Duration.ofHours(2)).build();
        try (DemoServer server = DemoServer.start(new InMemoryIdempotencyStore(), LabPolicy.RAISE, config, provider,
                provider::failNextCalls, 0)) {
            assertThat(docs(server)).contains("kept for 2 h after it completed").contains("a lease of\n20 s");
        }
    }

    /**
     * Issue 28: under a result cache the callers that ran and charged got the first writer's answer marked
     * Idempotent-Replayed. A replay is an answer to a request that did not run: the marker says only that.
     */
    @Test
    void underAResultCacheOnlyTheCallersThatDidNotRunAreMarkedReplayed() throws Exception {
        FakePaymentProvider slow = FakePaymentProvider.builder().latency(Duration.ofMillis(600)).build();
        try (DemoServer server = DemoServer.start(new InMemoryIdempotencyStore(), LabPolicy.RUN,
                IdempotencyConfig.ofDefaults(), slow, slow::failNextCalls, 0)) {
            List<java.util.concurrent.CompletableFuture<HttpResponse<String>>> answers = new java.util.ArrayList<>();
            for (int i = 0; i < 4; i++) {
                answers.add(http.sendAsync(ChargeRequest.of(server.uri(), "client-a", "o-1", 10, "k-cache"),
                        HttpResponse.BodyHandlers.ofString()));
            }
            long marked = 0;
            for (java.util.concurrent.CompletableFuture<HttpResponse<String>> answer : answers) {
                marked += answer.get().headers().firstValue("Idempotent-Replayed").isPresent() ? 1 : 0;
            }
            // A late one, after every first writer is done: it does not run, and is a replay.
            HttpResponse<String> late = http.send(ChargeRequest.of(server.uri(), "client-a", "o-1", 10, "k-cache"),
                    HttpResponse.BodyHandlers.ofString());

            int ran = slow.ledger().size();
            assertThat(ran).as("the result cache ran more than one of them").isGreaterThan(1);
            assertThat(marked).isEqualTo(4 - ran);
            assertThat(late.headers().firstValue("Idempotent-Replayed")).hasValue("true");
            assertThat(slow.ledger()).hasSize(ran);
        }
    }

    @Test
    void withoutTheFilterTheSameKeyChargesTwice() throws Exception {
        try (DemoServer server = DemoServer.start(new InMemoryIdempotencyStore(), LabPolicy.RAISE,
                IdempotencyConfig.ofDefaults(), provider, provider::failNextCalls, 0, false)) {
            for (int i = 0; i < 2; i++) {
                HttpResponse<String> answer = http.send(ChargeRequest.of(server.uri(), "client-a", "o-1", 10, "k-1"),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(answer.statusCode()).isEqualTo(201);
                assertThat(answer.headers().firstValue("Idempotent-Replayed")).isEmpty();
            }
            assertThat(provider.ledger()).hasSize(2);
            assertThat(docs(server)).contains("without the Idempotency-Key filter");
        }
    }
}
