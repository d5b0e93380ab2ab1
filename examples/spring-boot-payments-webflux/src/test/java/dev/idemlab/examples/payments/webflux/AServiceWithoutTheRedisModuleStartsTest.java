package dev.idemlab.examples.payments.webflux;

import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * This sample has the starter and the in-memory store, and no idempotency-redis on its class path. The
 * starter's store auto-configuration named a Redis type in a method of its own class, so such a service
 * failed at startup (NoClassDefFoundError: RedisStoreConfig, introspecting the auto-configuration). It
 * starts now, on 127.0.0.1 and an ephemeral port, and its charge route is behind the WebFlux filter:
 * a retry is replayed and the provider charged once.
 */
class AServiceWithoutTheRedisModuleStartsTest {

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    @Test
    void itStartsOnTheMemoryStoreAndARetryIsReplayedWithOneCharge() throws Exception {
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(WebFluxPaymentsApplication.class)
                .run("--server.address=127.0.0.1", "--server.port=0", "--payments.provider-latency=1ms")) {
            URI base = URI.create("http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port"));
            HttpResponse<String> first = charge(base, "k1");
            HttpResponse<String> retry = charge(base, "k1");

            assertThat(first.statusCode()).isEqualTo(201);
            assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
            assertThat(retry.statusCode()).isEqualTo(201);
            assertThat(retry.body()).isEqualTo(first.body());
            assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
            assertThat(app.getBean(Ledger.class).charges()).singleElement()
                    .satisfies(charge -> assertThat(charge).containsEntry("request_key", "k1"));
        }
    }

    private HttpResponse<String> charge(URI base, String key) throws Exception {
        return http.send(HttpRequest.newBuilder(base.resolve("/orders/o-1/charge")).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer client-a").header("Content-Type", "application/json")
                .header("Idempotency-Key", "\"" + key + "\"")
                .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":10}")).build(), HttpResponse.BodyHandlers.ofString());
    }
}
