package dev.idemlab.idempotency.servlet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idemlab.idempotency.InvalidIdempotencyConfigException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A route set up for clients written against Stripe's API, over real HTTP: the key taken bare, a
 * reused key answered 400, refusals in the route's own shape. The draft's defaults stay as they were.
 */
class CompatibilityRouteTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final OrdersApp app = new OrdersApp();
    private FilterServer server;

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    private HttpResponse<byte[]> post(String keyField, String body) throws Exception {
        return server.send(server.request("/orders/o-1/charge", "client-a").header("Content-Type", "application/json")
                .header("Idempotency-Key", keyField).POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    @Test
    void aBareKeyIsTakenWholeOnARouteThatAcceptsThem() throws Exception {
        server = FilterServer.start(Routes.charge().acceptBareKeys(true).build(), app);

        HttpResponse<byte[]> first = post("3f2b9c1e-8d4a-4c55-9f0e-2a7b6c1d0e9f", "{\"amount\":10}");
        HttpResponse<byte[]> retry = post("3f2b9c1e-8d4a-4c55-9f0e-2a7b6c1d0e9f", "{\"amount\":10}");
        // The same key quoted is the same key.
        HttpResponse<byte[]> quoted = post("\"3f2b9c1e-8d4a-4c55-9f0e-2a7b6c1d0e9f\"", "{\"amount\":10}");

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(retry.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER)).hasValue("true");
        assertThat(quoted.body()).isEqualTo(first.body());
        assertThat(app.charges.get()).isEqualTo(1);
    }

    @Test
    void aBareKeyWithACommaOrASpaceIsStillRefused() throws Exception {
        server = FilterServer.start(Routes.charge().acceptBareKeys(true).build(), app);

        assertThat(post("a, b", "{\"amount\":10}").statusCode()).isEqualTo(400);
        // a token with parameters would read two ways: abc;x=1 bare, abc when quoted
        assertThat(post("abc;x=1", "{\"amount\":10}").statusCode()).isEqualTo(400);
        assertThat(post("a b", "{\"amount\":10}").statusCode()).isEqualTo(400);
        assertThat(app.charges.get()).isZero();
    }

    @Test
    void aBareKeyIsRefusedByDefaultAsTheDraftSays() throws Exception {
        server = FilterServer.start(Routes.charge().build(), app);

        assertThat(post("3f2b9c1e", "{\"amount\":10}").statusCode()).isEqualTo(400);
        assertThat(app.charges.get()).isZero();
    }

    @Test
    void aReusedKeyGetsTheRoutesMismatchStatus() throws Exception {
        server = FilterServer.start(Routes.charge().mismatchStatus(400).build(), app);

        post("\"k-1\"", "{\"amount\":10}");
        HttpResponse<byte[]> reused = post("\"k-1\"", "{\"amount\":99}");

        assertThat(reused.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(reused.body()).get("type").asText()).endsWith("#" + Refusal.KEY_REUSED);
        assertThat(app.charges.get()).isEqualTo(1);
    }

    @Test
    void refusalsAreWrittenInTheRoutesOwnShape() throws Exception {
        RefusalWriter stripeShaped = (response, refusal) -> {
            byte[] body = JSON.writeValueAsBytes(JSON.createObjectNode().set("error", JSON.createObjectNode()
                    .put("type", "idempotency_error").put("code", refusal.code())));
            response.reset();
            response.setStatus(refusal.status());
            response.setContentType("application/json");
            response.getOutputStream().write(body);
        };
        server = FilterServer.start(Routes.charge().refusals(stripeShaped).build(), app);

        HttpResponse<byte[]> malformed = post("bare", "{\"amount\":10}");

        assertThat(malformed.statusCode()).isEqualTo(400);
        JsonNode error = JSON.readTree(new String(malformed.body(), StandardCharsets.UTF_8)).get("error");
        assertThat(error.get("code").asText()).isEqualTo(Refusal.KEY_MALFORMED);
    }

    @Test
    void aWriterThatForgetsTheStatusStillAnswersTheRefusalsStatus() throws Exception {
        server = FilterServer.start(Routes.charge().refusals((response, refusal) -> response.getOutputStream()
                .write("refused".getBytes(StandardCharsets.UTF_8))).build(), app);

        assertThat(post("bare", "{\"amount\":10}").statusCode()).isEqualTo(400);
        assertThat(app.charges.get()).isZero();
    }

    @Test
    void aMismatchStatusOtherThan400Or422IsRefusedNamingTheRule() {
        assertThatThrownBy(() -> Routes.charge().mismatchStatus(409).build())
                .isInstanceOf(InvalidIdempotencyConfigException.class).hasMessageContaining("422 (the draft's) or 400");
    }
}
