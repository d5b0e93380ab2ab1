package dev.idemlab.idempotency.servlet;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Draft sections 2.5, Responsibilities, and 2.6, Idempotency Enforcement Scenarios: the first request
 * runs; a retry replays its status, body byte for byte and named headers, marked as a replay; a
 * failure (5xx or a thrown error) is not stored, so a retry runs again.
 */
class DraftResponsibilitiesTest {

    private static final String PATH = "/orders/o-1/charge";
    private static final String BODY = "{\"amount\":10}";

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

    @Test
    void aRetryReplaysStatusBodyAndNamedHeadersMarkedAsAReplay() throws Exception {
        HttpResponse<byte[]> first = server.post(PATH, "k1", BODY);
        HttpResponse<byte[]> retry = server.post(PATH, "k1", BODY);
        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER)).isEmpty();
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(retry.headers().firstValue("Content-Type")).isEqualTo(first.headers().firstValue("Content-Type"));
        assertThat(retry.headers().firstValue("Location")).hasValue("/charges/ch_1");
        assertThat(retry.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER)).hasValue("true");
        assertThat(retry.headers().firstValue("X-Trace")).as("a header the route does not name").isEmpty();
        assertThat(app.charges.get()).isEqualTo(1);
    }

    @Test
    void aFreshKeyRunsAgain() throws Exception {
        server.post(PATH, "k1", BODY);
        HttpResponse<byte[]> other = server.post(PATH, "k2", BODY);
        assertThat(new String(other.body())).contains("ch_2");
    }

    @Test
    void a5xxIsNotStoredAndTheRetryRunsAgain() throws Exception {
        app.failNextWith(503);
        HttpResponse<byte[]> failed = server.post(PATH, "k1", BODY);
        assertThat(failed.statusCode()).isEqualTo(503);
        assertThat(new String(failed.body())).isEqualTo("the application is down");
        HttpResponse<byte[]> retry = server.post(PATH, "k1", BODY);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER)).isEmpty();
        assertThat(app.charges.get()).isEqualTo(1);
    }

    @Test
    void aThrownErrorIsNotStoredAndTheRetryRunsAgain() throws Exception {
        app.throwNext();
        assertThat(server.post(PATH, "k1", BODY).statusCode()).isEqualTo(500);
        HttpResponse<byte[]> retry = server.post(PATH, "k1", BODY);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(new String(retry.body())).contains("ch_1");
    }

    @Test
    void a4xxIsStoredAndReplayed() throws Exception {
        app.failNextWith(402);
        assertThat(server.post(PATH, "k1", BODY).statusCode()).isEqualTo(402);
        HttpResponse<byte[]> retry = server.post(PATH, "k1", BODY);
        assertThat(retry.statusCode()).isEqualTo(402);
        assertThat(retry.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER)).hasValue("true");
        assertThat(app.charges.get()).isZero();
    }

    @Test
    void withoutAKeyOnARouteThatDoesNotRequireOneTheRequestSimplyRuns() throws Exception {
        server.close();
        server = servers().start(Routes.charge().keyRequired(false).build(), app);
        server.post(PATH, null, BODY);
        server.post(PATH, null, BODY);
        assertThat(app.charges.get()).isEqualTo(2);
    }
}
