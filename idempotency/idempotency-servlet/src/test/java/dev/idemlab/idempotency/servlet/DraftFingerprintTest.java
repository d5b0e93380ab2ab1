package dev.idemlab.idempotency.servlet;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Draft section 2.4, Idempotency Fingerprint: method, path, the named headers and the body (canonical
 * JSON for JSON) decide whether a request with a seen key is the same request (replay) or another (422).
 */
class DraftFingerprintTest {

    private final OrdersApp app = new OrdersApp();
    private ServerUnderTest server;

    /** The servers this rule runs on: the servlet filter in Jetty here; the WebFlux filter's suite overrides it. */
    ServerUnderTest.Servers servers() {
        return FilterServer.JETTY;
    }


    @BeforeEach
    void start() throws Exception {
        server = servers().start(Routes.charge().fingerprintedHeaders("X-Currency").build(), app);
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    @Test
    void jsonMemberOrderAndWhitespaceDoNotMatter() throws Exception {
        server.post("/orders/o-1/charge", "k1", "{\"amount\":10,\"currency\":\"EUR\"}");
        HttpResponse<byte[]> retry = server.post("/orders/o-1/charge", "k1", "{ \"currency\" : \"EUR\", \"amount\" : 10.0 }");
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER)).hasValue("true");
        assertThat(app.charges.get()).isEqualTo(1);
    }

    @Test
    void anotherBodyIs422() throws Exception {
        server.post("/orders/o-1/charge", "k1", "{\"amount\":10}");
        assertThat(server.post("/orders/o-1/charge", "k1", "{\"amount\":5}").statusCode()).isEqualTo(422);
        assertThat(app.charges.get()).isEqualTo(1);
    }

    @Test
    void anotherPathIs422() throws Exception {
        server.post("/orders/o-1/charge", "k1", "{\"amount\":10}");
        assertThat(server.post("/orders/o-2/charge", "k1", "{\"amount\":10}").statusCode()).isEqualTo(422);
    }

    @Test
    void aNamedHeaderCountsAndAnUnnamedOneDoesNot() throws Exception {
        HttpRequest first = HttpRequest.newBuilder(server.postRequest("/orders/o-1/charge", "client-a", "k1",
                "{\"amount\":10}"), (n, v) -> true).header("X-Currency", "EUR").header("X-Trace", "1").build();
        HttpRequest otherTrace = HttpRequest.newBuilder(first, (n, v) -> !n.equalsIgnoreCase("X-Trace"))
                .header("X-Trace", "2").build();
        HttpRequest otherCurrency = HttpRequest.newBuilder(first, (n, v) -> !n.equalsIgnoreCase("X-Currency"))
                .header("X-Currency", "USD").build();
        assertThat(server.send(first).statusCode()).isEqualTo(201);
        assertThat(server.send(otherTrace).headers().firstValue(IdempotencyFilter.REPLAYED_HEADER)).hasValue("true");
        assertThat(server.send(otherCurrency).statusCode()).isEqualTo(422);
        assertThat(app.charges.get()).isEqualTo(1);
    }

    @Test
    void aBodyThatIsNotJsonIsComparedByItsBytes() throws Exception {
        HttpRequest text = server.request("/orders/o-1/charge", "client-a").header("Content-Type", "text/plain")
                .header("Idempotency-Key", "\"k1\"").POST(HttpRequest.BodyPublishers.ofString("amount=10")).build();
        HttpRequest spaced = HttpRequest.newBuilder(text, (n, v) -> true)
                .POST(HttpRequest.BodyPublishers.ofString("amount=10 ")).build();
        assertThat(server.send(text).statusCode()).isEqualTo(201);
        assertThat(server.send(text).headers().firstValue(IdempotencyFilter.REPLAYED_HEADER)).hasValue("true");
        assertThat(server.send(spaced).statusCode()).isEqualTo(422);
    }
}
