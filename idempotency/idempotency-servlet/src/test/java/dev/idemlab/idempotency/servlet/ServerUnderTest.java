package dev.idemlab.idempotency.servlet;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A real HTTP server on 127.0.0.1 and an ephemeral port with an idempotency filter in front of an
 * {@link Application} on {@code /orders/**}, and a JDK HTTP client to talk to it: what the shared rule
 * suite needs of a server, whichever filter it runs. {@code Authorization: Bearer NAME} makes NAME the
 * request's principal. Close it to stop the server.
 */
interface ServerUnderTest extends AutoCloseable {

    /** Where the server listens: {@code http://127.0.0.1:PORT}. */
    URI base();

    /** The client the suite talks to the server with (HTTP/1.1). */
    HttpClient http();

    /** A request to {@code path}, with the client's token when not null. */
    default HttpRequest.Builder request(String path, String token) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(base().resolve(path)).timeout(Duration.ofSeconds(30));
        if (token != null) {
            builder.header("Authorization", "Bearer " + token);
        }
        return builder;
    }

    /** A POST of {@code json} to {@code path} as client {@code token}, the key sent as a String item (none when null). */
    default HttpRequest postRequest(String path, String token, String key, String json) {
        HttpRequest.Builder builder = request(path, token).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json));
        if (key != null) {
            builder.header("Idempotency-Key", "\"" + key + "\"");
        }
        return builder.build();
    }

    /** POST {@code json} to {@code path} as client-a with the key sent as a String item (or none when null). */
    default HttpResponse<byte[]> post(String path, String key, String json) throws IOException, InterruptedException {
        return send(postRequest(path, "client-a", key, json));
    }

    default HttpResponse<byte[]> send(HttpRequest request) throws IOException, InterruptedException {
        return http().send(request, HttpResponse.BodyHandlers.ofByteArray());
    }

    default CompletableFuture<HttpResponse<byte[]>> sendAsync(HttpRequest request) {
        return http().sendAsync(request, HttpResponse.BodyHandlers.ofByteArray());
    }

    /** Starts servers under test: the rule suite's tests ask it for theirs, so one suite runs on each filter. */
    interface Servers {

        /** A server with {@code route}'s filter, clients named by the principal. */
        ServerUnderTest start(IdempotentRoute route, Application app) throws Exception;

        /** A server with {@code route}'s filter, clients named by the request header {@code header}. */
        ServerUnderTest startNamingClientsBy(String header, IdempotentRoute.Builder route, Application app)
                throws Exception;
    }
}
