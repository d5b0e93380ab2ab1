package dev.idemlab.lab.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.ProviderObserver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The demo server's {@code POST /v1/charges} as Stripe's SDKs speak to it, with raw requests over real
 * HTTP: form-encoded, the key bare, Stripe's charge and error objects, a reused key 400, a key in
 * flight 409 {@code idempotency_key_in_use}.
 */
class StripeRouteTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final CountDownLatch charging = new CountDownLatch(1);
    private FakePaymentProvider provider;
    private DemoServer server;

    @BeforeEach
    void start() throws Exception {
        provider = FakePaymentProvider.builder().latency(Duration.ofMillis(800)).observer(new ProviderObserver() {
            @Override
            public void callStarted(int callNumber, String orderId, long amount) {
                charging.countDown();
            }
        }).build();
        server = DemoServer.start(new InMemoryIdempotencyStore(), LabPolicy.RAISE, IdempotencyConfig.ofDefaults(),
                provider, provider::failNextCalls, 0);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private HttpRequest charge(String key, long amount) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.uri() + "/v1/charges"))
                .header("Authorization", "Bearer sk_test_a")
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("amount=" + amount + "&currency=usd&metadata%5Border_id%5D=o-7"));
        if (key != null) {
            request.header("Idempotency-Key", key);
        }
        return request.build();
    }

    private HttpResponse<String> send(HttpRequest request) throws Exception {
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aChargeIsAStripeChargeObjectAndItsRetryReplaysIt() throws Exception {
        HttpResponse<String> first = send(charge("5a8c0d2e-1f4b-4e6a-9c3d-7b2e1f0a9d8c", 1000));
        HttpResponse<String> retry = send(charge("5a8c0d2e-1f4b-4e6a-9c3d-7b2e1f0a9d8c", 1000));

        JsonNode charge = JSON.readTree(first.body());
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(charge.get("object").asText()).isEqualTo("charge");
        assertThat(charge.get("amount").asLong()).isEqualTo(1000);
        assertThat(charge.get("currency").asText()).isEqualTo("usd");
        assertThat(charge.at("/metadata/order_id").asText()).isEqualTo("o-7");
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(provider.ledger()).hasSize(1);
        String id = charge.get("id").asText();
        // The log records an attempt after its answer was flushed: the client may have it first.
        assertThat(server.awaitStripeAttemptsAnswered(Duration.ofSeconds(30))).isTrue();
        assertThat(server.stripeAttempts()).extracting(AttemptLog.Attempt::answer)
                .containsExactly("200 " + id, "200 " + id + " (replayed)");
    }

    @Test
    void aKeyReusedWithOtherParametersIsStripes400IdempotencyError() throws Exception {
        send(charge("k-reused", 1000));
        HttpResponse<String> reused = send(charge("k-reused", 2000));

        assertThat(reused.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(reused.body()).at("/error/type").asText()).isEqualTo("idempotency_error");
        assertThat(provider.ledger()).hasSize(1);
    }

    @Test
    void aKeyInFlightIs409IdempotencyKeyInUse() throws Exception {
        CompletableFuture<HttpResponse<String>> first = http.sendAsync(charge("k-busy", 1000),
                HttpResponse.BodyHandlers.ofString());
        assertThat(charging.await(30, TimeUnit.SECONDS)).isTrue();
        HttpResponse<String> second = send(charge("k-busy", 1000));

        assertThat(second.statusCode()).isEqualTo(409);
        JsonNode error = JSON.readTree(second.body()).get("error");
        assertThat(error.get("type").asText()).isEqualTo("idempotency_error");
        assertThat(error.get("code").asText()).isEqualTo("idempotency_key_in_use");
        assertThat(first.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        assertThat(provider.ledger()).hasSize(1);
    }

    @Test
    void theKeyIsOptionalAsOnStripe() throws Exception {
        assertThat(send(charge(null, 1000)).statusCode()).isEqualTo(200);
        assertThat(send(charge(null, 1000)).statusCode()).isEqualTo(200);
        assertThat(provider.ledger()).hasSize(2);
    }

    @Test
    void aMissingAmountIsStripesInvalidRequestError() throws Exception {
        HttpResponse<String> answer = send(HttpRequest.newBuilder(URI.create(server.uri() + "/v1/charges"))
                .header("Authorization", "Bearer sk_test_a").header("Idempotency-Key", "k-1")
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("currency=usd")).build());

        assertThat(answer.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(answer.body()).at("/error/param").asText()).isEqualTo("amount");
        assertThat(provider.ledger()).isEmpty();
    }
}
