package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotencyStats;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.StoreFailureMode;
import dev.idemlab.idempotency.servlet.IdempotentRoute;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.webflux.IdempotencyWebFilter;
import dev.idemlab.idempotency.webflux.ReactiveClientResolver;
import dev.idemlab.lab.http.DemoServer;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.lab.scenario.CoordinatorFactory;
import dev.idemlab.provider.FakePaymentProvider;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The WebFlux filter's servers: {@link IdempotencyWebFilter} on Reactor Netty, bound to 127.0.0.1 on
 * ephemeral ports, one per policy and store-failure mode, with the route the servlet side's demo builds
 * (its operation, documentation link, opt-in wait under WAIT, anonymous clients where the run's clients
 * include one), behind a bearer-token principal as the servlet side's client authentication, and in
 * front of the demo's charge route as a WebFlux handler ({@link WebFluxCharges}, which also holds the
 * hooks that tell the history what happened inside). Each filter calls its coordinator through its own
 * executor of 256 threads, as many as each Jetty server of the servlet side has: the workload's actions
 * block their thread for seconds, and a smaller pool would queue the calls rather than test the filter.
 * Thread-safe; {@link #close()} stops every server and executor, also when the run failed.
 */
final class WebFluxServers implements HttpServers {

    /** Each filter's executor: as many threads as a Jetty server of the servlet side, and a queue behind them. */
    private static final int THREADS = 256;
    private static final int QUEUED_TASKS = 100_000;
    /** How long a stopping server waits for the exchanges still open (a client that gave up left its request running). */
    private static final Duration STOP_PATIENCE = Duration.ofSeconds(5);

    private final Map<String, Running> servers;

    /** One server: what it listens on, the coordinator behind its filter, and the filter's executor. */
    private record Running(DisposableServer server, URI uri, IdempotencyCoordinator coordinator, Scheduler executor) {

        void stop() {
            try {
                server.disposeNow(STOP_PATIENCE);
            } finally {
                executor.dispose();
            }
        }
    }

    private WebFluxServers(Map<String, Running> servers) {
        this.servers = servers;
    }

    /**
     * Starts one server per policy and store-failure mode.
     *
     * @throws IOException when one cannot start (those started are stopped)
     */
    static WebFluxServers start(NemesisSettings settings, IdempotencyStore store, IdempotencyConfig config,
                                FakePaymentProvider provider, HttpServerSide side, Callers callers)
            throws IOException {
        WebFluxCharges charges = new WebFluxCharges(side, provider, callers);
        Map<String, Running> servers = new HashMap<>();
        try {
            for (InFlightPolicy policy : InFlightPolicy.values()) {
                for (StoreFailureMode mode : StoreFailureMode.values()) {
                    servers.put(CoordinatorPath.name(policy, mode), start(settings, store,
                            config.toBuilder().storeFailureMode(mode).build(), HttpServers.labPolicy(settings, policy),
                            charges));
                }
            }
        } catch (RuntimeException e) {
            stopAll(servers.values());
            throw new IOException("a WebFlux server of the nemesis could not start on " + DemoServer.HOST, e);
        }
        return new WebFluxServers(servers);
    }

    /**
     * One server. It is bound before its filter is built, so that the route's documentation link names
     * the real port, as the servlet side's demo does; until then it has no handler to answer with.
     */
    private static Running start(NemesisSettings settings, IdempotencyStore store, IdempotencyConfig config,
                                 LabPolicy policy, WebFluxCharges charges) {
        IdempotencyCoordinator coordinator = CoordinatorFactory.LIBRARY.create(store, policy,
                config.toBuilder().policy(InFlightPolicy.RAISE).build());
        AtomicReference<ReactorHttpHandlerAdapter> handler = new AtomicReference<>();
        DisposableServer server = HttpServer.create().host(DemoServer.HOST).port(0)
                .handle((request, response) -> handler.get().apply(request, response))
                .bindNow();
        URI uri = URI.create("http://" + DemoServer.HOST + ":" + server.port());
        Scheduler executor = Schedulers.newBoundedElastic(THREADS, QUEUED_TASKS, "nemesis-webflux-filter", 60, true);
        Running running = new Running(server, uri, coordinator, executor);
        try {
            handler.set(handler(settings, policy, coordinator, uri, executor, charges));
        } catch (RuntimeException e) {
            running.stop();
            throw e;
        }
        return running;
    }

    /** The bearer principal, the WebFlux filter over the route the servlet side's demo builds, the charge route. */
    private static ReactorHttpHandlerAdapter handler(NemesisSettings settings, LabPolicy policy,
                                                     IdempotencyCoordinator coordinator, URI uri, Scheduler executor,
                                                     WebFluxCharges charges) {
        IdempotentRoute route = IdempotentRoute.custom(DemoServer.OPERATION, charges.observe(coordinator))
                .documentation(uri.resolve("/docs/idempotency"))
                .allowWaiting(policy == LabPolicy.WAIT)
                .allowAnonymousClients(settings.clients() != Clients.BEARER)
                .build();
        // The double whose scoping broke: one client for everyone, whoever authenticated.
        ReactiveClientResolver clients = settings.sabotage() == Sabotage.SHARED_SCOPE
                ? exchange -> Mono.just("everyone") : ReactiveClientResolver.PRINCIPAL;
        IdempotencyWebFilter filter = IdempotencyWebFilter.custom(route).paths("/orders/**").clients(clients)
                .executor(executor::schedule).build();
        return new ReactorHttpHandlerAdapter(WebHttpHandlerBuilder.webHandler(charges::handle)
                .filter(WebFluxCharges::bearerPrincipal, filter, charges::attribute)
                .build());
    }

    @Override
    public URI uri(InFlightPolicy policy, StoreFailureMode mode) {
        return servers.get(CoordinatorPath.name(policy, mode)).uri();
    }

    @Override
    public IdempotencyStats stats() {
        List<IdempotencyStats> all = new ArrayList<>();
        servers.values().forEach(each -> all.add(each.coordinator().stats()));
        return NemesisHistory.sum(all);
    }

    @Override
    public void close() {
        stopAll(servers.values());
    }

    /** Stops every server, each one even when another did not stop cleanly; the first failure is thrown after. */
    private static void stopAll(Iterable<Running> running) {
        RuntimeException failure = null;
        for (Running each : running) {
            try {
                each.stop();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = new IllegalStateException("a WebFlux server of the nemesis did not stop cleanly", e);
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
