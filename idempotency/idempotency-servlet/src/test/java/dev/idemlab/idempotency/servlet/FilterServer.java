package dev.idemlab.idempotency.servlet;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.EnumSet;

/**
 * A real Jetty 12 ee10 server on 127.0.0.1 and an ephemeral port, with the bearer filter, the
 * idempotency filter on {@code /orders/*} and an application servlet behind them; and a JDK HTTP
 * client to talk to it: the servlet filter's {@link ServerUnderTest}. Close it to stop the server.
 */
final class FilterServer implements ServerUnderTest {

    /** The servlet filter in Jetty: the shared rule suite's servers by default. */
    static final Servers JETTY = new Servers() {
        @Override
        public ServerUnderTest start(IdempotentRoute route, Application app) throws Exception {
            return FilterServer.start(route, app);
        }

        @Override
        public ServerUnderTest startNamingClientsBy(String header, IdempotentRoute.Builder route, Application app)
                throws Exception {
            return FilterServer.start(route.clients(request -> request.getHeader(header)).build(), app);
        }
    };

    private final Server server;
    private final URI base;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    private FilterServer(Server server, int port) {
        this.server = server;
        this.base = URI.create("http://127.0.0.1:" + port);
    }

    static FilterServer start(IdempotentRoute route, Application app) throws Exception {
        return start(new IdempotencyFilter(route), new ApplicationServlet(app));
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

    @Override
    public URI base() {
        return base;
    }

    @Override
    public HttpClient http() {
        return http;
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }
}
