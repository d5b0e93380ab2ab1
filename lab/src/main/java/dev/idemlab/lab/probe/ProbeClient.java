package dev.idemlab.lab.probe;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

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
    record Answer(int status, String body, Optional<String> replayed, Optional<String> location) {

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
        HttpRequest.Builder request = request(settings.url()).header("Content-Type", "application/json")
                .method(settings.method(), HttpRequest.BodyPublishers.ofString(settings.body(amount)));
        if (key != null) {
            request.header("Idempotency-Key", "\"" + key.replace("\\", "\\\\").replace("\"", "\\\"") + "\"");
        }
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        return new Answer(response.statusCode(), response.body(), response.headers().firstValue("Idempotent-Replayed"),
                response.headers().firstValue("Location"));
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

    /** How many ledger entries name {@code key} (the provider records the key it was passed). */
    static long chargesFor(JsonNode ledger, String key) {
        long count = 0;
        for (JsonNode charge : ledger) {
            if (key.equals(charge.path("idempotency_key").asText(null))) {
                count++;
            }
        }
        return count;
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
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri).timeout(TIMEOUT);
        if (settings.token() != null) {
            builder.header("Authorization", "Bearer " + settings.token());
        }
        return builder;
    }
}
