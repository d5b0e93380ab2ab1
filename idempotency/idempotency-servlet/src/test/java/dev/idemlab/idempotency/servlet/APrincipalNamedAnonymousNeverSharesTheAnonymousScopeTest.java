package dev.idemlab.idempotency.servlet;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 39, defect 3: on a route that allows anonymous clients, a request naming no client was scoped
 * as if its client were called {@code anonymous}, so a logged-in user whose principal has that name
 * shared the anonymous clients' records: each replayed the other's stored response, and the second
 * action never ran. The anonymous scope now has a shape of its own that no client's scope can take.
 */
class APrincipalNamedAnonymousNeverSharesTheAnonymousScopeTest {

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
        server = servers().start(Routes.charge().allowAnonymousClients(true).build(), app);
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    @Test
    void aPrincipalNamedAnonymousAndAnUnauthenticatedClientEachRunTheirOwnRequest() throws Exception {
        HttpResponse<byte[]> named = server.send(server.postRequest(PATH, "anonymous", "0001", BODY));
        HttpResponse<byte[]> unnamed = server.send(server.postRequest(PATH, null, "0001", BODY));

        assertThat(named.statusCode()).isEqualTo(201);
        assertThat(unnamed.statusCode()).isEqualTo(201);
        assertThat(unnamed.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER)).as("not the principal's replay")
                .isEmpty();
        assertThat(new String(unnamed.body())).contains("ch_2").doesNotContain("ch_1");
        assertThat(app.charges.get()).as("both actions ran").isEqualTo(2);
    }

    @Test
    void eachReplaysOnlyItsOwnResponse() throws Exception {
        HttpResponse<byte[]> unnamed = server.send(server.postRequest(PATH, null, "0002", BODY));
        HttpResponse<byte[]> named = server.send(server.postRequest(PATH, "anonymous", "0002", BODY));
        HttpResponse<byte[]> unnamedAgain = server.send(server.postRequest(PATH, null, "0002", BODY));
        HttpResponse<byte[]> namedAgain = server.send(server.postRequest(PATH, "anonymous", "0002", BODY));

        assertThat(named.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER)).isEmpty();
        assertThat(named.body()).isNotEqualTo(unnamed.body());
        assertThat(unnamedAgain.body()).isEqualTo(unnamed.body());
        assertThat(namedAgain.body()).isEqualTo(named.body());
        assertThat(namedAgain.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER)).hasValue("true");
        assertThat(app.charges.get()).isEqualTo(2);
    }
}
