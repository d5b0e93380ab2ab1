package dev.idemlab.idempotency.servlet;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Draft section 2.2, Uniqueness of Idempotency Key, and section 5, Security Considerations: keys are
 * scoped per client, so one client can never replay another client's stored response by sending its key.
 */
class DraftSecurityTest {

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
    void clientBSendingClientAsKeyAndBodyGetsItsOwnExecutionNeverAsResponse() throws Exception {
        HttpResponse<byte[]> a = server.send(server.postRequest(PATH, "client-a", "shared-key", BODY));
        HttpResponse<byte[]> b = server.send(server.postRequest(PATH, "client-b", "shared-key", BODY));
        assertThat(new String(a.body())).contains("ch_1");
        assertThat(b.statusCode()).isEqualTo(201);
        assertThat(b.body()).isNotEqualTo(a.body());
        assertThat(new String(b.body())).contains("ch_2").doesNotContain("ch_1");
        assertThat(b.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER)).isEmpty();
        HttpResponse<byte[]> aAgain = server.send(server.postRequest(PATH, "client-a", "shared-key", BODY));
        assertThat(aAgain.body()).as("A still replays its own").isEqualTo(a.body());
    }

    @Test
    void aRequestThatNamesNoClientIsRefusedUnlessTheRouteAllowsAnonymousClients() throws Exception {
        HttpResponse<byte[]> anonymous = server.send(server.postRequest(PATH, null, "k1", BODY));
        assertThat(anonymous.statusCode()).isEqualTo(401);
        assertThat(app.charges.get()).isZero();
        server.close();
        server = servers().start(Routes.charge().allowAnonymousClients(true).build(), app);
        assertThat(server.send(server.postRequest(PATH, null, "k1", BODY)).statusCode()).isEqualTo(201);
    }

    @Test
    void aResolverTheRouteConfiguresScopesTheKeys() throws Exception {
        server.close();
        server = servers().startNamingClientsBy("X-Api-Key-Owner", Routes.charge(), app);
        HttpResponse<byte[]> first = server.send(java.net.http.HttpRequest.newBuilder(
                server.postRequest(PATH, null, "k1", BODY), (n, v) -> true).header("X-Api-Key-Owner", "tenant-1").build());
        HttpResponse<byte[]> other = server.send(java.net.http.HttpRequest.newBuilder(
                server.postRequest(PATH, null, "k1", BODY), (n, v) -> true).header("X-Api-Key-Owner", "tenant-2").build());
        assertThat(new String(first.body())).contains("ch_1");
        assertThat(new String(other.body())).contains("ch_2");
    }
}
