package dev.idemlab.examples.payments;

import dev.idemlab.provider.Charge;
import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.http.ProviderService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 39, defect 6: the sample started on its own defaults (Redis as its store) with that Redis not
 * running. Before, it answered 201 to two requests with one key and the provider charged twice, its
 * readiness had no say in it. Now the charge fails closed (503, nothing charged), readiness is DOWN, and
 * where a service opts back into fail-open the provider gets the call's downstream key, on which a
 * deduplicating provider charges once. The sample runs in this JVM on real HTTP (an ephemeral port on
 * 127.0.0.1), the provider is the project's own HTTP service, and the store's URL points at a local port
 * nothing listens on.
 */
class StoreUnreachableTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private final List<AutoCloseable> started = new ArrayList<>();
    private FakePaymentProvider provider;

    @AfterEach
    void stopWhatWasStarted() throws Exception {
        for (int i = started.size() - 1; i >= 0; i--) {
            started.get(i).close();
        }
    }

    @Test
    void onItsDefaultsTwoRequestsWithOneKeyChargeAtMostOnceAndReadinessIsDown() throws Exception {
        URI sample = startSample(false);

        HttpResponse<String> first = charge(sample, "k-1");
        HttpResponse<String> retry = charge(sample, "k-1");

        assertThat(provider.ledger()).as("the provider's ledger").hasSizeLessThanOrEqualTo(1);
        assertThat(List.of(first.statusCode(), retry.statusCode())).as("both answers").containsOnly(503);
        HttpResponse<String> readiness = get(sample.resolve("/actuator/health/readiness"));
        assertThat(readiness.statusCode()).isEqualTo(503);
        assertThat(readiness.body()).contains("\"status\":\"DOWN\"");
    }

    @Test
    void failingOpenOnPurposeThePaymentRouteStillChargesOnceAtAProviderThatDeduplicatesOnTheDownstreamKey()
            throws Exception {
        URI sample = startSample(true, "--idempotency.store-failure-mode=fail-open");

        HttpResponse<String> first = charge(sample, "k-2");
        HttpResponse<String> retry = charge(sample, "k-2");

        assertThat(List.of(first.statusCode(), retry.statusCode())).containsOnly(201);
        assertThat(provider.ledger()).hasSize(1);
        Charge charged = provider.ledger().get(0);
        assertThat(charged.idempotencyKey()).as("the downstream key, derived from the operation and the key")
                .startsWith("idem_").isNotEqualTo("k-2");
        assertThat(retry.body()).contains(charged.id());
    }

    /** The provider (deduplicating or not), then the sample on its defaults plus {@code extra}; its base URI. */
    private URI startSample(boolean deduplicating, String... extra) throws IOException {
        provider = FakePaymentProvider.builder().latency(Duration.ZERO).deduplicateOnKey(deduplicating).build();
        ProviderService providerService = ProviderService.start(provider);
        started.add(providerService);
        List<String> arguments = new ArrayList<>(List.of("--server.port=0",
                "--idempotency.redis.uri=redis://127.0.0.1:" + closedPort(),
                "--payments.provider-url=" + providerService.uri(),
                "--spring.datasource.url=jdbc:h2:mem:" + System.nanoTime()));
        arguments.addAll(List.of(extra));
        ConfigurableApplicationContext context = SpringApplication.run(PaymentsApplication.class,
                arguments.toArray(String[]::new));
        started.add(context);
        return URI.create("http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port"));
    }

    /** A loopback port that nothing listens on: bound, then let go. */
    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static HttpResponse<String> charge(URI sample, String key) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(sample.resolve("/orders/o-1/charge"))
                .header("Content-Type", "application/json").header("Idempotency-Key", "\"" + key + "\"")
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString("{\"amount\": 500}")).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> get(URI uri) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
