package dev.idemlab.idempotency.servlet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Draft section 2.7, Error Scenarios: a missing key is 400, a reused key 422, a concurrent request 409
 * with Retry-After, each as RFC 9457 problem details linking the route's documentation; and the
 * opt-in deviation, waiting instead of 409. Races are staged with latches, never with sleeps.
 */
class DraftErrorScenariosTest {

    private static final String PATH = "/orders/o-1/charge";
    private static final String BODY = "{\"amount\":10}";

    private final OrdersApp app = new OrdersApp();
    private ServerUnderTest server;

    /** The servers this rule runs on: the servlet filter in Jetty here; the WebFlux filter's suite overrides it. */
    ServerUnderTest.Servers servers() {
        return FilterServer.JETTY;
    }


    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    private static JsonNode problem(HttpResponse<byte[]> response) throws Exception {
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(response.headers().firstValue("Link"))
                .hasValue("<" + Routes.DOCS + ">; rel=\"describedby\"");
        JsonNode json = new ObjectMapper().readTree(response.body());
        assertThat(json.get("status").asInt()).isEqualTo(response.statusCode());
        assertThat(json.get("type").asText()).startsWith(Routes.DOCS.toString());
        assertThat(json.get("title").asText()).isNotBlank();
        return json;
    }

    @Test
    void aMissingKeyIs400WithALinkToTheDocumentation() throws Exception {
        server = servers().start(Routes.charge().build(), app);
        HttpResponse<byte[]> response = server.post(PATH, null, BODY);
        assertThat(response.statusCode()).isEqualTo(400);
        JsonNode json = problem(response);
        assertThat(json.get("type").asText()).isEqualTo(Routes.DOCS + "#idempotency-key-missing");
        assertThat(json.get("documentation").asText()).isEqualTo(Routes.DOCS.toString());
        assertThat(app.charges.get()).isZero();
    }

    @Test
    void aReusedKeyIs422() throws Exception {
        server = servers().start(Routes.charge().build(), app);
        server.post(PATH, "k1", BODY);
        HttpResponse<byte[]> response = server.post(PATH, "k1", "{\"amount\":5}");
        assertThat(response.statusCode()).isEqualTo(422);
        assertThat(problem(response).get("type").asText()).endsWith("#idempotency-key-reused");
    }

    @Test
    void aConcurrentRequestIs409WithRetryAfterAndOneCharge() throws Exception {
        server = servers().start(Routes.charge().build(), app);
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        app.holdNext(entered, release);
        CompletableFuture<HttpResponse<byte[]>> first = server.sendAsync(server.postRequest(PATH, "client-a", "k1", BODY));
        assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
        HttpResponse<byte[]> second = server.post(PATH, "k1", BODY);
        release.countDown();
        assertThat(second.statusCode()).isEqualTo(409);
        assertThat(problem(second).get("type").asText()).endsWith("#idempotency-key-in-flight");
        assertThat(second.headers().firstValue("Retry-After")).hasValueSatisfying(
                seconds -> assertThat(Long.parseLong(seconds)).isBetween(1L, 30L));
        assertThat(first.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
        assertThat(app.charges.get()).isEqualTo(1);
    }

    @Test
    void waitingIsAnOptInDeviationThatReplaysTheFirstResponse() throws Exception {
        CountDownLatch secondFoundItInFlight = new CountDownLatch(1);
        ForwardingIdempotencyStore store = new ForwardingIdempotencyStore(new InMemoryIdempotencyStore()) {
            @Override
            public Reservation reserve(String namespace, String token, String fingerprint, Duration lease) {
                Reservation reservation = super.reserve(namespace, token, fingerprint, lease);
                if (reservation instanceof Reservation.Found found && found.record() instanceof IdempotencyRecord.Pending) {
                    secondFoundItInFlight.countDown();
                }
                return reservation;
            }
        };
        server = servers().start(Routes.charge(store, InFlightPolicy.WAIT).build(), app);
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        app.holdNext(entered, release);
        CompletableFuture<HttpResponse<byte[]>> first = server.sendAsync(server.postRequest(PATH, "client-a", "k1", BODY));
        assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<HttpResponse<byte[]>> second = server.sendAsync(server.postRequest(PATH, "client-a", "k1", BODY));
        assertThat(secondFoundItInFlight.await(30, TimeUnit.SECONDS)).isTrue();
        release.countDown();
        HttpResponse<byte[]> a = first.get(30, TimeUnit.SECONDS);
        HttpResponse<byte[]> b = second.get(30, TimeUnit.SECONDS);
        assertThat(b.statusCode()).isEqualTo(201);
        assertThat(b.body()).isEqualTo(a.body());
        assertThat(b.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER)).hasValue("true");
        assertThat(app.charges.get()).isEqualTo(1);
    }
}
