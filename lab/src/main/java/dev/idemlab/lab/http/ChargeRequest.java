package dev.idemlab.lab.http;

import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;

/**
 * {@code POST /orders/{id}/charge} to the demo payment API as its clients send it: a bearer client,
 * {@code {"amount": N}} and the key as an RFC 8941 String item. Shared by the scenarios and the load
 * over HTTP, so that both speak to the demo exactly alike. Stateless and thread-safe.
 */
public final class ChargeRequest {

    private static final Duration TIMEOUT = Duration.ofMinutes(2);

    private ChargeRequest() { }

    /**
     * The request.
     *
     * @param base the demo API, {@code http://127.0.0.1:PORT}
     * @param client the bearer client the key is scoped by
     * @param orderId the order to charge
     * @param amount in minor units
     * @param key the Idempotency-Key
     */
    public static HttpRequest of(URI base, String client, String orderId, long amount, String key) {
        return HttpRequest.newBuilder(base.resolve("/orders/" + orderId + "/charge"))
                .timeout(TIMEOUT)
                .header("Authorization", "Bearer " + client)
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", "\"" + key.replace("\\", "\\\\").replace("\"", "\\\"") + "\"")
                .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":" + amount + "}"))
                .build();
    }
}
