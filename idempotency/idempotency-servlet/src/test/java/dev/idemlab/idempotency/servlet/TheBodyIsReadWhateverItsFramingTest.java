package dev.idemlab.idempotency.servlet;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The filter reads a body of declared length into an array of that length and a chunked body (no
 * declared length) in growing reads: either way the application gets every byte, a replay answers the
 * same, and a body over the route's limit is 413 without running the application.
 */
class TheBodyIsReadWhateverItsFramingTest {

    private static final int LIMIT = 4096;

    @Test
    void aChunkedBodyLongerThanTheFirstReadReachesTheApplicationWholeAndReplays() throws Exception {
        OrdersApp app = new OrdersApp();
        String json = "{\"amount\":10,\"note\":\"" + "n".repeat(3000) + "\"}";
        try (FilterServer server = FilterServer.start(Routes.charge().maxBodyBytes(LIMIT).build(), app)) {
            HttpResponse<byte[]> first = server.send(chunked(server, "k-chunked", json));
            HttpResponse<byte[]> again = server.send(chunked(server, "k-chunked", json));

            assertThat(first.statusCode()).isEqualTo(201);
            assertThat(new String(first.body(), StandardCharsets.UTF_8)).contains(json);
            assertThat(again.body()).isEqualTo(first.body());
            assertThat(again.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER)).hasValue("true");
            assertThat(app.charges.get()).isEqualTo(1);
        }
    }

    @Test
    void aBodyOfDeclaredLengthReachesTheApplicationWhole() throws Exception {
        OrdersApp app = new OrdersApp();
        String json = "{\"amount\":10,\"note\":\"" + "d".repeat(LIMIT - 40) + "\"}";
        try (FilterServer server = FilterServer.start(Routes.charge().maxBodyBytes(LIMIT).build(), app)) {
            HttpResponse<byte[]> answer = server.post("/orders/o-1/charge", "k-declared", json);

            assertThat(answer.statusCode()).isEqualTo(201);
            assertThat(new String(answer.body(), StandardCharsets.UTF_8)).contains(json);
        }
    }

    @Test
    void aBodyOverTheLimitIs413DeclaredOrChunked() throws Exception {
        OrdersApp app = new OrdersApp();
        String json = "{\"amount\":10,\"note\":\"" + "o".repeat(LIMIT) + "\"}";
        try (FilterServer server = FilterServer.start(Routes.charge().maxBodyBytes(LIMIT).build(), app)) {
            assertThat(server.post("/orders/o-1/charge", "k-over", json).statusCode()).isEqualTo(413);
            assertThat(server.send(chunked(server, "k-over-chunked", json)).statusCode()).isEqualTo(413);
            assertThat(app.charges.get()).isZero();
        }
    }

    private static HttpRequest chunked(FilterServer server, String key, String json) {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        return server.request("/orders/o-1/charge", "client-a").header("Content-Type", "application/json")
                .header("Idempotency-Key", "\"" + key + "\"")
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(bytes))).build();
    }
}
