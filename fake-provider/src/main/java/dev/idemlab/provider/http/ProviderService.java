package dev.idemlab.provider.http;

import dev.idemlab.provider.FakePaymentProvider;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

import java.net.URI;
import java.util.Objects;

/**
 * A {@link FakePaymentProvider} behind HTTP on 127.0.0.1, so that callers in other processes,
 * killed or not, charge one ledger. Routes:
 *
 * <ul>
 *   <li>{@code POST /charges} with {@code {"order_id","amount","idempotency_key"?,"fence"?}} (the
 *       key may come as an {@code Idempotency-Key} header instead): 201 with the charge, 200 with
 *       a replayed one, 422 for a reused key, 409 for a stale fence, 504 for a planned timeout
 *       (before or after charging: the caller cannot tell).</li>
 *   <li>{@code GET /ledger}: the charges in order. {@code GET /charges/{id}}: one charge, or 404.
 *       {@code GET /charges?idempotency_key=K}: the charges requested with that key, oldest first (a JSON
 *       array, empty when none): a real provider's "retrieve by idempotency key".</li>
 *   <li>{@code POST /faults} with {@code {"fail_next": n}} or {@code {"charge_then_time_out_next": n}}: 204.</li>
 * </ul>
 *
 * <p>Errors are RFC 9457 problem details ({@code application/problem+json}); a bad request is a
 * 400 whose {@code detail} states the rule it broke.
 *
 * <p>This class is thread-safe. {@link #close()} stops the server.
 */
public final class ProviderService implements AutoCloseable {

    /** The only address the service binds. */
    public static final String HOST = "127.0.0.1";

    private final Server server;
    private final FakePaymentProvider provider;
    private final URI uri;

    private ProviderService(Server server, FakePaymentProvider provider, int port) {
        this.server = server;
        this.provider = provider;
        this.uri = URI.create("http://" + HOST + ":" + port);
    }

    /**
     * Starts the service on an ephemeral port.
     *
     * @param provider the provider whose ledger the service charges
     * @return the running service
     * @throws IllegalStateException when the server cannot start
     */
    public static ProviderService start(FakePaymentProvider provider) {
        return start(provider, 0);
    }

    /**
     * Starts the service on the given port.
     *
     * @param provider the provider whose ledger the service charges
     * @param port the port, or 0 for an ephemeral one
     * @return the running service
     * @throws IllegalArgumentException when the port is not 0 to 65535
     * @throws IllegalStateException when the server cannot start, for instance the port is taken
     */
    public static ProviderService start(FakePaymentProvider provider, int port) {
        Objects.requireNonNull(provider, "provider");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be 0 (ephemeral) to 65535: " + port);
        }
        QueuedThreadPool threads = new QueuedThreadPool();
        threads.setName("provider-http");
        Server server = new Server(threads);
        ServerConnector connector = new ServerConnector(server);
        connector.setHost(HOST);
        connector.setPort(port);
        server.addConnector(connector);
        server.setHandler(new ProviderRoutes(provider));
        server.setErrorHandler(new ProblemErrorHandler());
        try {
            server.start();
        } catch (Exception e) {
            stopQuietly(server, e);
            throw new IllegalStateException("the provider service could not start on " + HOST + ":" + port, e);
        }
        return new ProviderService(server, provider, connector.getLocalPort());
    }

    /** The service's base address, {@code http://127.0.0.1:PORT}, without a trailing slash. */
    public URI uri() {
        return uri;
    }

    /** The port the service listens on. */
    public int port() {
        return uri.getPort();
    }

    /** The provider behind the service; its ledger is the one callers over HTTP charge. */
    public FakePaymentProvider provider() {
        return provider;
    }

    /**
     * Blocks until the service has stopped.
     *
     * @throws InterruptedException when the waiting thread is interrupted
     */
    public void awaitStopped() throws InterruptedException {
        server.join();
    }

    /**
     * Stops the server; calls in flight are cut off. Idempotent.
     *
     * @throws IllegalStateException when the server fails to stop
     */
    @Override
    public void close() {
        try {
            server.stop();
        } catch (Exception e) {
            throw new IllegalStateException("the provider service at " + uri + " did not stop cleanly", e);
        }
    }

    private static void stopQuietly(Server server, Exception failure) {
        try {
            server.stop();
        } catch (Exception e) {
            failure.addSuppressed(e);
        }
    }
}
