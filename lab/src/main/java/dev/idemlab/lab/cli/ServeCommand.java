package dev.idemlab.lab.cli;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.lab.http.DemoProvider;
import dev.idemlab.lab.http.DemoServer;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.infra.StoreBackends;
import dev.idemlab.lab.policy.LabPolicy;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * {@code lab serve}: the demo payment API on Jetty behind the idempotency filter, until Ctrl-C. A
 * shutdown hook stops the server, the store client and any private store server it started.
 */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = "Serves a demo payment API (POST /orders/{id}/charge with {\"amount\": N}, GET /ledger) behind "
                + "the Idempotency-Key filter, on 127.0.0.1. Clients name themselves with 'Authorization: Bearer "
                + "client-a'; keys are scoped per client. --policy run puts the lab's result cache behind the same "
                + "HTTP surface, to show the double charge. Ctrl-C stops it.")
final class ServeCommand implements Callable<Integer> {

    static final long MAX_TTL_S = 30L * 24 * 60 * 60;

    @Spec
    CommandSpec spec;

    @Mixin
    StoreOptions store;

    @Option(names = "--policy", paramLabel = "POLICY", defaultValue = "raise",
            description = "In-flight policy: raise (409, the draft's), wait (an opt-in deviation: the retry waits) "
                    + "or run (a result cache: the bug). Default: ${DEFAULT-VALUE}.")
    LabPolicy policy;

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "0",
            description = "Port on 127.0.0.1; 0 picks a free one. Default: ${DEFAULT-VALUE}.")
    int port;

    @Option(names = "--provider-url", paramLabel = "URL",
            description = "Charge the provider service at URL (ProviderServiceMain) instead of an in-process fake.")
    URI providerUrl;

    @Option(names = "--latency-ms", paramLabel = "MS", defaultValue = "300",
            description = "How long the in-process provider takes per charge, 0 to 60000. Default: ${DEFAULT-VALUE}.")
    long latencyMs;

    @Option(names = "--lease-s", paramLabel = "S", defaultValue = "30",
            description = "The reservation's lease in seconds, 1 to 3600: a 409's Retry-After never exceeds what it has left. Default: ${DEFAULT-VALUE}.")
    long leaseSeconds;

    @Option(names = "--ttl-s", paramLabel = "S", defaultValue = "86400",
            description = "How long a completed request's answer is kept, in seconds: longer than the lease, up to "
                    + "30 days. Published on /docs/idempotency. Default: ${DEFAULT-VALUE} (24 h).")
    long ttlSeconds;

    @Option(names = "--without-filter",
            description = "Serve the same handlers without the Idempotency-Key filter, every request straight "
                    + "through: the baseline to measure the filter's cost against. Nothing is idempotent then.")
    boolean withoutFilter;

    @Override
    public Integer call() throws Exception {
        String storeName = store.validatedStore();
        if (port < 0 || port > 65535) {
            throw new UsageException("--port must be 0 to 65535, got " + port);
        }
        if (latencyMs < 0 || latencyMs > 60_000) {
            throw new UsageException("--latency-ms must be 0 to 60000, got " + latencyMs);
        }
        if (leaseSeconds < 1 || leaseSeconds > 3600) {
            throw new UsageException("--lease-s must be 1 to 3600, got " + leaseSeconds);
        }
        if (ttlSeconds <= leaseSeconds || ttlSeconds > MAX_TTL_S) {
            throw new UsageException("--ttl-s must be longer than the lease (" + leaseSeconds + " s) and at most "
                    + MAX_TTL_S + " (30 days), got " + ttlSeconds);
        }
        DemoProvider provider = providerUrl == null ? DemoProvider.inProcess(Duration.ofMillis(latencyMs))
                : remote(providerUrl);
        PrintWriter out = spec.commandLine().getOut();
        StoreBackend backend = StoreBackends.open(storeName, store.provisioning(java.util.List.of(storeName)));
        Stopper stopper = new Stopper(backend);
        Thread hook = new Thread(stopper, "lab-serve-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            stopper.records = backend.openStore();
            stopper.server = DemoServer.start(stopper.records, policy, IdempotencyConfig.custom()
                    .lease(Duration.ofSeconds(leaseSeconds)).ttl(Duration.ofSeconds(ttlSeconds)).build(),
                    provider.provider(), provider.failNext(), port, !withoutFilter);
            DemoServer server = stopper.server;
            out.println("lab serve: listening on " + server.uri() + " (" + DemoServer.ROUTES + ")");
            if (withoutFilter) {
                out.println("  WITHOUT the Idempotency-Key filter: every request runs, nothing is idempotent");
            }
            out.println("  policy=" + policy.name().toLowerCase(java.util.Locale.ROOT) + ", store: "
                    + backend.server().describe());
            out.println("  provider: " + provider.description());
            out.println("  clients: Authorization: Bearer <name>; try: lab probe --url " + server.uri()
                    + "/orders/o-1/charge --token client-a");
            out.println("  Ctrl-C stops it.");
            out.flush();
            server.awaitStopped();
        } finally {
            stopper.run();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // The hook is running: it has stopped everything, or waits for this thread to.
            }
        }
        return 0;
    }

    private static DemoProvider remote(URI url) {
        try {
            return DemoProvider.remote(url);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--provider-url: " + e.getMessage());
        }
    }

    /** Stops the server, then the store client, then the private store server: once, whoever calls first. */
    private static final class Stopper implements Runnable {

        private final StoreBackend backend;
        private final java.util.concurrent.atomic.AtomicBoolean stopped = new java.util.concurrent.atomic.AtomicBoolean();
        volatile IdempotencyStore records;
        volatile DemoServer server;

        Stopper(StoreBackend backend) {
            this.backend = backend;
        }

        @Override
        public void run() {
            if (!stopped.compareAndSet(false, true)) {
                return;
            }
            if (server != null) {
                quietly(server::close);
            }
            if (records != null) {
                quietly(records::close);
            }
            quietly(backend::close);
        }
    }

    private static void quietly(Runnable stop) {
        try {
            stop.run();
        } catch (RuntimeException e) {
            System.err.println("lab: stopping: " + e.getMessage());
        }
    }
}
