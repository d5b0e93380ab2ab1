package dev.idemlab.idempotency.servlet;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;

/**
 * A real Jetty 12 ee10 server on 127.0.0.1 and an ephemeral port, with the bearer filter, the
 * idempotency filter on {@code /orders/*} and an application servlet behind them; and a JDK HTTP
 * client to talk to it. Close it to stop the server.
 */
final class FilterServer implements AutoCloseable {

    private final Server server;
    private final URI base;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    private FilterServer(Server server, int port) {
        this.server = server;
        this.base = URI.create("http://127.0.0.1:" + port);
    }

    static FilterServer start(IdempotentRoute route, HttpServlet app) throws Exception {
        return start(new IdempotencyFilter(route), app);
    }

    static FilterServer start(Filter idempotency, HttpServlet app) throws Exception {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.addFilter(new FilterHolder(new BearerPrincipalFilter()), "/*", EnumSet.of(DispatcherType.REQUEST));
        context.addFilter(new FilterHolder(idempotency), "/orders/*", EnumSet.of(DispatcherType.REQUEST));
        context.addServlet(new ServletHolder(app), "/*");
        server.setHandler(context);
        try {
            server.start();
        } catch (Exception e) {
            server.stop();
            throw e;
        }
        return new FilterServer(server, connector.getLocalPort());
    }

    /** A request to {@code path}, with the client's token when not null. */
    HttpRequest.Builder request(String path, String token) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(30));
        if (token != null) {
            builder.header("Authorization", "Bearer " + token);
        }
        return builder;
    }

    /** POST {@code json} to {@code path} as client-a with the key sent as a String item (or none when null). */
    HttpResponse<byte[]> post(String path, String key, String json) throws IOException, InterruptedException {
        return send(postRequest(path, "client-a", key, json));
    }

    HttpRequest postRequest(String path, String token, String key, String json) {
        HttpRequest.Builder builder = request(path, token).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json));
        if (key != null) {
            builder.header("Idempotency-Key", "\"" + key + "\"");
        }
        return builder.build();
    }

    HttpResponse<byte[]> send(HttpRequest request) throws IOException, InterruptedException {
        return http.send(request, HttpResponse.BodyHandlers.ofByteArray());
    }

    CompletableFuture<HttpResponse<byte[]>> sendAsync(HttpRequest request) {
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray());
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }
}
