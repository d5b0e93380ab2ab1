package dev.idemlab.lab.http;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.servlet.ClientResolver;
import dev.idemlab.idempotency.servlet.IdempotencyFilter;
import dev.idemlab.idempotency.servlet.IdempotentRoute;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.lab.scenario.CoordinatorFactory;
import dev.idemlab.provider.PaymentProvider;
import jakarta.servlet.DispatcherType;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

import java.io.IOException;
import java.net.URI;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.function.IntConsumer;

/**
 * The demo payment API ({@link DemoPaymentApi}) on Jetty 12, on 127.0.0.1, behind the bearer-token
 * client filter and the idempotency filter: what {@code lab serve} runs, and what the HTTP transport
 * of the scenarios and the load talks to. Under RUN the filter sits in front of the lab's result
 * cache, so the same HTTP surface shows the bug. Thread-safe; {@link #close()} stops the server (the
 * store and the provider belong to the caller).
 */
public final class DemoServer implements AutoCloseable {

    /** The only address the demo binds. */
    public static final String HOST = "127.0.0.1";
    /** The route's operation. */
    public static final String OPERATION = "payment.charge";
    /** The routes, for people. */
    public static final String ROUTES = "POST /orders/{id}/charge, POST /v1/charges (Stripe-compatible), GET /ledger, "
            + "POST /faults, GET /docs/idempotency";
    /** The Stripe-compatible route's operation. */
    public static final String STRIPE_OPERATION = "stripe.charge";

    private final Server server;
    private final URI uri;
    private final IdempotencyCoordinator coordinator;
    private final AttemptLog stripeAttempts;

    private DemoServer(Server server, URI uri, IdempotencyCoordinator coordinator, AttemptLog stripeAttempts) {
        this.server = server;
        this.uri = uri;
        this.coordinator = coordinator;
        this.stripeAttempts = stripeAttempts;
    }

    /**
     * Starts the demo.
     *
     * @param store where idempotency records live
     * @param policy RUN (the lab's result cache), WAIT (an opt-in deviation) or RAISE (409, the draft's)
     * @param config lease, ttl and store-failure mode; its policy is replaced by {@code policy}
     * @param provider the provider it charges
     * @param failNext plans the provider's next n charges to time out before charging
     * @param port the port, 0 for an ephemeral one
     * @throws IOException when the port cannot be bound
     */
    public static DemoServer start(IdempotencyStore store, LabPolicy policy, IdempotencyConfig config,
                                   PaymentProvider provider, IntConsumer failNext, int port) throws IOException {
        return start(store, policy, config, provider, failNext, port, true);
    }

    /**
     * As {@link #start(IdempotencyStore, LabPolicy, IdempotencyConfig, PaymentProvider, IntConsumer, int)};
     * with {@code guarded} false the same handlers run without the idempotency filter, every request
     * straight through: the baseline the filter's cost is measured against.
     */
    public static DemoServer start(IdempotencyStore store, LabPolicy policy, IdempotencyConfig config,
                                   PaymentProvider provider, IntConsumer failNext, int port, boolean guarded)
            throws IOException {
        return start(store, policy, config, provider, failNext, port, guarded, Harness.NONE);
    }

    /**
     * The same handlers without the idempotency filter, the payment route doing the store's raw writes by
     * hand around its charge ({@link RawWrites}): the floor the filter's cost is judged against, on an
     * ephemeral port. The store behind the other routes' coordinator is never written.
     *
     * @param raw the raw client on the store's server
     * @param unused a store for the coordinator the demo always builds; nothing calls it
     * @throws IOException when no port can be bound
     */
    public static DemoServer startRawWrites(dev.idemlab.lab.load.raw.RawStore raw, IdempotencyStore unused,
                                            PaymentProvider provider) throws IOException {
        return start(unused, LabPolicy.RAISE, IdempotencyConfig.ofDefaults(), provider, count -> { }, 0, false,
                Harness.NONE, new RawWrites(raw));
    }

    private static DemoServer start(IdempotencyStore store, LabPolicy policy, IdempotencyConfig config,
                                    PaymentProvider provider, IntConsumer failNext, int port, boolean guarded,
                                    Harness harness) throws IOException {
        return start(store, policy, config, provider, failNext, port, guarded, harness, null);
    }

    private static DemoServer start(IdempotencyStore store, LabPolicy policy, IdempotencyConfig config,
                                    PaymentProvider provider, IntConsumer failNext, int port, boolean guarded,
                                    Harness harness, RawWrites rawWrites) throws IOException {
        Objects.requireNonNull(provider, "provider");
        IdempotencyCoordinator coordinator = CoordinatorFactory.LIBRARY.create(store, policy,
                config.toBuilder().policy(InFlightPolicy.RAISE).build());
        QueuedThreadPool threads = new QueuedThreadPool(256, 8);
        threads.setName("demo-http");
        Server server = new Server(threads);
        ServerConnector connector = new ServerConnector(server);
        connector.setHost(HOST);
        connector.setPort(port);
        connector.setAcceptQueueSize(1024);
        server.addConnector(connector);
        // Bound first, so that the route's documentation link can name the real port.
        connector.open();
        URI uri = URI.create("http://" + HOST + ":" + connector.getLocalPort());
        IdempotencyCoordinator filtered = harness.coordinator().apply(coordinator);
        IdempotentRoute route = IdempotentRoute.custom(OPERATION, filtered)
                .documentation(uri.resolve("/docs/idempotency"))
                .allowWaiting(policy == LabPolicy.WAIT)
                .clients(harness.clients())
                .allowAnonymousClients(harness.anonymousClients())
                .build();
        // As Stripe's API takes it: the key optional and sent bare, a reused key 400, Stripe's error objects.
        IdempotentRoute stripe = IdempotentRoute.custom(STRIPE_OPERATION, filtered)
                .documentation(uri.resolve("/docs/idempotency"))
                .keyRequired(false)
                .acceptBareKeys(true)
                .mismatchStatus(400)
                .refusals(new StripeRefusals())
                .allowWaiting(policy == LabPolicy.WAIT)
                .build();
        AttemptLog stripeAttempts = new AttemptLog();
        EnumSet<DispatcherType> requests = EnumSet.of(DispatcherType.REQUEST);
        ServletContextHandler context = new ServletContextHandler();
        context.addFilter(new FilterHolder(new BearerClients()), "/*", requests);
        if (harness.beforeFilter() != null) {
            context.addFilter(new FilterHolder(harness.beforeFilter()), "/*", requests);
        }
        context.addFilter(new FilterHolder(stripeAttempts), StripeChargesApi.PATH, requests);
        if (guarded) {
            context.addFilter(new FilterHolder(new IdempotencyFilter(route)), "/orders/*", requests);
            context.addFilter(new FilterHolder(new IdempotencyFilter(stripe)), StripeChargesApi.PATH, requests);
        }
        RequestKeys requestKeys = new RequestKeys();
        context.addServlet(new ServletHolder(new StripeChargesApi(provider, requestKeys)), StripeChargesApi.PATH);
        context.addServlet(new ServletHolder(new DemoPaymentApi(provider, failNext,
                DemoPaymentApi.docs(coordinator.config(), guarded), requestKeys, rawWrites)), "/*");
        server.setHandler(context);
        try {
            server.start();
        } catch (Exception e) {
            try {
                server.stop();
            } catch (Exception stopping) {
                e.addSuppressed(stopping);
            }
            throw new IOException("the demo server could not start on " + uri, e);
        }
        return new DemoServer(server, uri, coordinator, stripeAttempts);
    }

    /**
     * What a harness puts around the demo's own pieces, to watch it or to break it on purpose: the lab's
     * nemesis records each request's reservation and outcome, names the account behind each request, and
     * runs a double whose scoping is broken. Immutable.
     *
     * @param coordinator wraps the coordinator the routes' filters call: an observer passes every call on
     * @param beforeFilter a filter between the client authentication and the idempotency filter, or {@code null}
     * @param clients names the client of a request for the payment route's scoping
     * @param anonymousClients whether the payment route lets requests that name no client share one scope
     */
    public record Harness(java.util.function.UnaryOperator<IdempotencyCoordinator> coordinator,
                          jakarta.servlet.Filter beforeFilter, ClientResolver clients, boolean anonymousClients) {

        /** The demo as {@code lab serve} runs it. */
        public static final Harness NONE = new Harness(java.util.function.UnaryOperator.identity(), null,
                ClientResolver.PRINCIPAL, false);

        public Harness {
            Objects.requireNonNull(coordinator, "coordinator");
            Objects.requireNonNull(clients, "clients");
        }
    }

    /**
     * The demo with {@code harness} around it, on an ephemeral port, behind the idempotency filter; the
     * provider's fault hook does nothing.
     *
     * @throws IOException when no port can be bound
     */
    public static DemoServer start(IdempotencyStore store, LabPolicy policy, IdempotencyConfig config,
                                   PaymentProvider provider, Harness harness) throws IOException {
        return start(store, policy, config, provider, count -> { }, 0, true, harness);
    }

    /** {@code http://127.0.0.1:PORT}. */
    public URI uri() {
        return uri;
    }

    /** The coordinator behind the filter, for its counters. */
    public IdempotencyCoordinator coordinator() {
        return coordinator;
    }

    /** Every request {@code POST /v1/charges} got so far, in the order they were answered. */
    public List<AttemptLog.Attempt> stripeAttempts() {
        return stripeAttempts.attempts();
    }

    /**
     * Waits until every request {@code POST /v1/charges} got has been answered, also those whose client
     * stopped waiting.
     *
     * @return whether all were answered within {@code timeout}
     */
    public boolean awaitStripeAttemptsAnswered(java.time.Duration timeout) throws InterruptedException {
        return stripeAttempts.awaitAnswered(timeout);
    }

    /** Blocks until the server has stopped. */
    public void awaitStopped() throws InterruptedException {
        server.join();
    }

    /** Stops the server; requests in flight are cut off. Idempotent. */
    @Override
    public void close() {
        try {
            server.stop();
        } catch (Exception e) {
            throw new IllegalStateException("the demo server at " + uri + " did not stop cleanly", e);
        }
    }
}
