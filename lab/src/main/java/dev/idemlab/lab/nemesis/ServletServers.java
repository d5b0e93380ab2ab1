package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyStats;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.StoreFailureMode;
import dev.idemlab.idempotency.servlet.ClientResolver;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.lab.http.DemoServer;
import dev.idemlab.provider.FakePaymentProvider;

import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The servlet filter's servers: the demo API as {@code lab serve} runs it on Jetty, one per policy and
 * store-failure mode, with {@link HttpServerSide}'s hooks around the route's coordinator and between
 * the client authentication and the filter. Thread-safe; {@link #close()} stops them.
 */
final class ServletServers implements HttpServers {

    private final Map<String, DemoServer> servers;

    private ServletServers(Map<String, DemoServer> servers) {
        this.servers = servers;
    }

    /**
     * Starts the demo servers on ephemeral ports.
     *
     * @throws IOException when one cannot start (those started are stopped)
     */
    static ServletServers start(NemesisSettings settings, IdempotencyStore store, IdempotencyConfig config,
                                FakePaymentProvider provider, HttpServerSide side) throws IOException {
        // The double whose scoping broke: one client for everyone, whoever authenticated.
        ClientResolver resolver = settings.sabotage() == Sabotage.SHARED_SCOPE ? request -> "everyone"
                : ClientResolver.PRINCIPAL;
        DemoServer.Harness harness = new DemoServer.Harness(side::observe, side.tagger(), resolver,
                settings.clients() != Clients.BEARER);
        Map<String, DemoServer> servers = new HashMap<>();
        try {
            for (InFlightPolicy policy : InFlightPolicy.values()) {
                for (StoreFailureMode mode : StoreFailureMode.values()) {
                    servers.put(CoordinatorPath.name(policy, mode), DemoServer.start(store,
                            HttpServers.labPolicy(settings, policy), config.toBuilder().storeFailureMode(mode).build(),
                            side.provider(provider), harness));
                }
            }
        } catch (IOException | RuntimeException e) {
            servers.values().forEach(DemoServer::close);
            throw e;
        }
        return new ServletServers(servers);
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
        servers.values().forEach(DemoServer::close);
    }
}
