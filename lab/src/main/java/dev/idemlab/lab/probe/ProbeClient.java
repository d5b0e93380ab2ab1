package dev.idemlab.lab.probe;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idemlab.idempotency.servlet.headers.ExpiryPolicyHeader;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/**
 * The probe's side of the wire: the route's requests with or without a key, the ledger if the server
 * offers one, and the fault hook if it offers one. Thread-safe.
 */
final class ProbeClient {

    /** What one request got back. */
    record Answer(int status, String body, Optional<String> replayed, Optional<String> location,
                  Optional<String> contentType, Optional<String> link, Optional<String> retryAfter,
                  Optional<String> expiryPolicy) {

        /** Whether it is RFC 9457 problem details, or links its documentation ({@code rel="describedby"}). */
        boolean explained() {
            return contentType.filter(type -> type.startsWith("application/problem+json")).isPresent()
                    || link.filter(value -> value.contains("describedby")).isPresent();
        }

        boolean ok() {
            return status >= 200 && status < 300;
        }

        /** The created resource's id: the body's {@code id}, else the Location. */
        Optional<String> resourceId() {
            try {
                JsonNode json = JSON.readTree(body);
                if (json != null && json.path("id").isValueNode()) {
                    return Optional.of(json.get("id").asText());
                }
            } catch (IOException notJson) {
                // fall through to the Location
            }
            return location;
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private final ProbeSettings settings;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    ProbeClient(ProbeSettings settings) {
        this.settings = settings;
    }

    /** The route's request with {@code key} sent as an RFC 8941 String, or without a key when null. */
    Answer send(String key, long amount) throws IOException, InterruptedException {
        return sendRaw(key == null ? java.util.List.of()
                : java.util.List.of("\"" + key.replace("\\", "\\\\").replace("\"", "\\\"") + "\""), amount, settings.token());
    }

    /**
     * The route's request with the Idempotency-Key field lines exactly as given (none for an empty list),
     * as the client with {@code token} (none when null).
     */
    Answer sendRaw(java.util.List<String> keyFieldLines, long amount, String token)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = request(settings.url(), token).header("Content-Type", "application/json")
                .method(settings.method(), HttpRequest.BodyPublishers.ofString(settings.body(amount)));
        for (String line : keyFieldLines) {
            request.header("Idempotency-Key", line);
        }
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        java.net.http.HttpHeaders headers = response.headers();
        return new Answer(response.statusCode(), response.body(), headers.firstValue("Idempotent-Replayed"),
                headers.firstValue("Location"), headers.firstValue("Content-Type"), headers.firstValue("Link"),
                headers.firstValue("Retry-After"), headers.firstValue(ExpiryPolicyHeader.NAME));
    }

    /** The server's ledger ({@code GET /ledger}, a JSON array), or empty when it offers none. */
    Optional<JsonNode> ledger() throws InterruptedException {
        try {
            HttpResponse<String> response = http.send(request(settings.origin().resolve("/ledger")).GET().build(),
                    HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            if (response.statusCode() != 200) {
                return Optional.empty();
            }
            JsonNode json = JSON.readTree(response.body());
            return json != null && json.isArray() ? Optional.of(json) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * How many ledger entries name {@code key} (the provider records the key it was passed): the key, or
     * the field's String item as sent, quotes and all, for a server that passes the raw field along.
     */
    static long chargesFor(JsonNode ledger, String key) {
        long count = 0;
        String quoted = "\"" + key + "\"";
        for (JsonNode charge : ledger) {
            String passed = requestKey(charge);
            if (key.equals(passed) || quoted.equals(passed)) {
                count++;
            }
        }
        return count;
    }

    /**
     * The request key a ledger entry was charged for: its {@code request_key}, where the server passed the
     * provider a key derived from the request's (scoped to the client, as it should be) and says which;
     * else the key the provider was passed, {@code idempotency_key}.
     */
    static String requestKey(JsonNode charge) {
        JsonNode requestKey = charge.get("request_key");
        return requestKey != null && requestKey.isTextual() ? requestKey.asText()
                : charge.path("idempotency_key").asText(null);
    }

    /** Asks the server ({@code POST /faults}) to fail its next charge; false when it offers no such hook. */
    boolean failNextCharge() throws InterruptedException {
        try {
            HttpResponse<Void> response = http.send(request(settings.origin().resolve("/faults"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"fail_next\":1}")).build(),
                    HttpResponse.BodyHandlers.discarding());
            return response.statusCode() >= 200 && response.statusCode() < 300;
        } catch (IOException e) {
            return false;
        }
    }

    private HttpRequest.Builder request(URI uri) {
        return request(uri, settings.token());
    }

    private static HttpRequest.Builder request(URI uri, String token) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri).timeout(TIMEOUT);
        if (token != null) {
            builder.header("Authorization", "Bearer " + token);
        }
        return builder;
    }
}
