package dev.idemlab.idempotency.servlet;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Draft section 2.1, Syntax: {@code Idempotency-Key} is an RFC 8941 Item whose value is a String.
 * Over real HTTP against the filter in Jetty.
 */
class DraftSyntaxTest {

    private final OrdersApp app = new OrdersApp();
    private ServerUnderTest server;

    /** The servers this rule runs on: the servlet filter in Jetty here; the WebFlux filter's suite overrides it. */
    ServerUnderTest.Servers servers() {
        return FilterServer.JETTY;
    }


    @BeforeEach
    void start() throws Exception {
        server = servers().start(Routes.charge().build(), app);
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    private HttpResponse<byte[]> withRawKey(String... fieldLines) throws Exception {
        HttpRequest.Builder request = server.request("/orders/o-1/charge", "client-a")
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":10}"));
        for (String line : fieldLines) {
            request.header("Idempotency-Key", line);
        }
        return server.send(request.build());
    }

    @ParameterizedTest(name = "accepted: {0}")
    @ValueSource(strings = {"\"8e03978e-40d5-43e8-bc93-6894a57f9324\"", "\"a\"", "\"with \\\"quotes\\\"\"",
            "\"k\";ttl=3600", "\"k\"; a=?1;b=tok;c=\"s\";d=1.5;e=:aGk=:"})
    void aStringItemIsAccepted(String field) throws Exception {
        assertThat(withRawKey(field).statusCode()).isEqualTo(201);
        assertThat(app.charges.get()).isEqualTo(1);
    }

    @ParameterizedTest(name = "refused: {0}")
    @ValueSource(strings = {"bare-token", "\"a\", \"b\"", "\"unterminated", "\"a\"x", "\"bad \\escape\"", "42",
            "\"\"", "\"k\";Bad=1"})
    void anythingButOneStringItemIs400AndNothingRuns(String field) throws Exception {
        HttpResponse<byte[]> response = withRawKey(field);
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(app.charges.get()).isZero();
    }

    @Test
    void twoFieldLinesAre400() throws Exception {
        HttpResponse<byte[]> response = withRawKey("\"a\"", "\"a\"");
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(new ObjectMapper().readTree(response.body()).get("detail").asText()).contains("2 field lines");
        assertThat(app.charges.get()).isZero();
    }

    @Test
    void aListIsNamedAsSuch() throws Exception {
        HttpResponse<byte[]> response = withRawKey("\"a\", \"b\"");
        assertThat(new ObjectMapper().readTree(response.body()).get("detail").asText()).contains("not a List");
    }

    @Test
    void keysOf255CharactersAreAcceptedAnd256Refused() throws Exception {
        assertThat(server.post("/orders/o-1/charge", "k".repeat(255), "{\"amount\":10}").statusCode()).isEqualTo(201);
        HttpResponse<byte[]> tooLong = server.post("/orders/o-1/charge", "k".repeat(256), "{\"amount\":10}");
        assertThat(tooLong.statusCode()).isEqualTo(400);
        assertThat(new ObjectMapper().readTree(tooLong.body()).get("detail").asText())
                .contains("1 to 255 Unicode code points, got 256");
        assertThat(app.charges.get()).isEqualTo(1);
    }

    @Test
    void methodsTheRouteDoesNotGuardPassThrough() throws Exception {
        HttpResponse<byte[]> get = server.send(server.request("/orders/o-1/charge", "client-a").GET().build());
        assertThat(get.statusCode()).isEqualTo(200);
    }
}
