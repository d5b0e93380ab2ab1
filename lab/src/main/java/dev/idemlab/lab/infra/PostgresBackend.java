package dev.idemlab.lab.infra;

import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.store.postgres.PostgresIdempotencyStore;
import dev.idemlab.idempotency.store.postgres.PostgresStoreConfig;

import org.postgresql.Driver;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;

import javax.sql.DataSource;

/**
 * PostgreSQL for a lab run, from the first origin that works: the URL the user gave
 * ({@code --pg-url} or {@code IDEMLAB_PG_URL}), then the bundled binary, then a Testcontainers
 * container when Docker is there. {@link ProvisioningOptions#pgFrom()} forces one origin.
 *
 * <p>Private servers listen on 127.0.0.1 on an ephemeral port and are stopped by {@link #close()},
 * or by a shutdown hook if the JVM ends first (Ctrl-C). A server given by URL is never stopped: the
 * run works there in a schema of its own ({@link RunSchema}), which {@link #cleanUp()} (or, failing
 * that, {@link #close()}) drops, so the server is left as it was found.
 *
 * <p>Thread-safe.
 */
public final class PostgresBackend implements StoreBackend {

    private static final Logger LOG = LoggerFactory.getLogger(PostgresBackend.class);

    private final PostgresServer server;
    /** The run's own schema on a server given by URL; {@code null} on a private server. */
    private final RunSchema schema;
    /** Whether {@link #cleanUp()} has said what the drop did: once per run, whoever dropped it. */
    private final java.util.concurrent.atomic.AtomicBoolean cleanUpSaid = new java.util.concurrent.atomic.AtomicBoolean();
    private final ServerInfo info;
    private final List<AutoCloseable> owned = new ArrayList<>();
    private final Thread shutdownHook;
    private boolean closed;

    private PostgresBackend(PostgresServer server, RunSchema schema, boolean durable) {
        this.server = server;
        this.schema = schema;
        this.shutdownHook = new Thread(this::close, "idemlab-postgres-stop");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        // The probe runs on plain connections, not a pool: whatever it throws, nothing is left open.
        try (PostgresIdempotencyStore probe = PostgresIdempotencyStore.open(probeDataSource(server),
                PostgresStoreConfig.forDataSource().namespacePrefix("probe:").build())) {
            String durability = ServerDurability.postgres(server.jdbcUrl(), server.user(), server.password(),
                    durable && server.isPrivate());
            this.info = new ServerInfo("postgres", probe.describe().serverVersion(), server.origin(), server.address(),
                    durability);
        } catch (ProvisioningException e) {
            close();
            throw e;
        } catch (RuntimeException e) {
            close();
            throw new ProvisioningException("postgres " + server.origin().description() + " at " + server.address()
                    + " does not answer: " + e.getMessage(), e);
        }
    }

    /**
     * Finds or starts a server as {@code options} say.
     *
     * @throws ProvisioningException when no origin gave a server, saying what was tried and how to get one
     */
    public static PostgresBackend open(ProvisioningOptions options) {
        PostgresServer server = provision(options);
        if (server.isPrivate()) {
            return new PostgresBackend(server, null, options.durable());
        }
        RunSchema schema = RunSchema.create(server.jdbcUrl(), server.user(), server.password(), server.address());
        return new PostgresBackend(new PostgresServer(schema.url(), server.user(), server.password(), Origin.URL,
                server.address(), () -> { }), schema, options.durable());
    }

    /**
     * On a server given by URL: drops the schema this run worked in, with every table in it, and says
     * so; empty on a private server, which is stopped with everything in it.
     */
    @Override
    public Optional<String> cleanUp() {
        if (schema == null || cleanUpSaid.getAndSet(true)) {
            return Optional.empty();
        }
        return Optional.of(schema.drop());
    }

    /** The schema this run works in on a server given by URL; empty on a private server. */
    public Optional<String> runSchema() {
        return schema == null ? Optional.empty() : Optional.of(schema.name());
    }

    @Override
    public String name() {
        return "postgres";
    }

    @Override
    public ServerInfo server() {
        return info;
    }

    /** Where clients connect; may carry the user's password, so never print it. */
    public String jdbcUrl() {
        return server.jdbcUrl();
    }

    /** The user clients connect as, or {@code null} when {@link #jdbcUrl()} carries it. */
    public String user() {
        return server.user();
    }

    /** The password, or {@code null}; never print it. */
    public String password() {
        return server.password();
    }

    /** A store with a fresh namespace prefix, so its records never meet another store's. */
    @Override
    public IdempotencyStore openStore() {
        return new PostgresIdempotencyStore(config(server, freshPrefix()).build());
    }

    /**
     * A store with a fresh namespace prefix, as {@link #openStore()} gives, that connects to this
     * server through {@code 127.0.0.1:localPort} (a proxy in front of it, for the network's faults).
     * The caller closes it.
     */
    public PostgresIdempotencyStore openStoreThrough(int localPort) {
        String through = server.jdbcUrl().replaceFirst("^jdbc:postgresql://[^/]*/", "jdbc:postgresql://127.0.0.1:"
                + localPort + "/");
        return new PostgresIdempotencyStore(PostgresStoreConfig.custom(through)
                .credentials(server.user(), server.password()).namespacePrefix(freshPrefix()).build());
    }

    /** The host and port of the server, as its JDBC URL names them. */
    public java.net.InetSocketAddress address() {
        String[] hostPort = addressOf(server.jdbcUrl()).split(":");
        return java.net.InetSocketAddress.createUnresolved(hostPort[0], Integer.parseInt(hostPort[1]));
    }

    /**
     * For a private server: a second private server, a store verified against it, then the server
     * stopped. For a URL: a store pointed at a 127.0.0.1 port where nothing listens.
     */
    @Override
    public StoreOutage openOutage() {
        return server.isPrivate() ? stoppedPrivateServer() : nothingListening();
    }

    /**
     * A second private server, started for an experiment that stops it (a peer's store down): from this
     * backend's own origin when it is private, else the first private origin that works, so that a server
     * given by URL is never the one stopped. The caller closes it, which stops it.
     *
     * @throws ProvisioningException when no private server could be started
     */
    public PostgresServer startServerToStop() {
        if (server.isPrivate()) {
            return startPrivate(server.origin(), false);
        }
        try {
            return BundledPostgres.start(false);
        } catch (ProvisioningException bundled) {
            return ContainerPostgres.start();
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (AutoCloseable resource : owned) {
            closeQuietly(resource);
        }
        closeQuietly(server);
        if (schema != null) {
            schema.drop(); // once: a run that ended without its command's clean-up (Ctrl-C) drops it here
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException alreadyShuttingDown) {
            // close() is running from the hook itself
        }
    }

    private StoreOutage stoppedPrivateServer() {
        PostgresServer doomed = startPrivate(server.origin(), false);
        synchronized (this) {
            owned.add(doomed);
        }
        PostgresIdempotencyStore store = new PostgresIdempotencyStore(config(doomed, freshPrefix()).build());
        try {
            store.lookup("outage:probe"); // connected and working before its server goes away
        } catch (RuntimeException e) {
            store.close();
            throw e;
        } finally {
            doomed.close();
        }
        String how = "stopped a second private postgres (" + doomed.origin().description() + ") on " + doomed.address();
        return new Outage(store, how);
    }

    private StoreOutage nothingListening() {
        int port = unusedPort();
        String url = "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
        PostgresStoreConfig config = PostgresStoreConfig.custom(url).credentials(server.user(), server.password())
                .namespacePrefix(freshPrefix()).requireServerAtStart(false).build();
        return new Outage(new PostgresIdempotencyStore(config),
                "pointed a store at 127.0.0.1:" + port + ", where nothing listens (the server at the given URL is untouched)");
    }

    private static PostgresServer provision(ProvisioningOptions options) {
        String url = options.effectivePgUrl();
        Origin forced = options.pgFrom();
        if (forced == Origin.URL || (forced == null && url != null)) {
            if (url == null) {
                throw new ProvisioningException("--pg-from url needs --pg-url or " + ProvisioningOptions.PG_URL_ENV, null);
            }
            String address = addressOf(url);
            // One connect first: a dead address fails now, in one line, not after the pool's timeout.
            Listening.require(address, "the PostgreSQL given by URL");
            return new PostgresServer(url, null, null, Origin.URL, address, () -> { });
        }
        if (forced != null) {
            return startPrivate(forced, options.durable());
        }
        List<String> tried = new ArrayList<>();
        try {
            return BundledPostgres.start(options.durable());
        } catch (ProvisioningException e) {
            tried.add(e.getMessage());
        }
        try {
            return ContainerPostgres.start();
        } catch (ProvisioningException e) {
            tried.add(e.getMessage());
        }
        throw new ProvisioningException("no PostgreSQL server could be had; tried: " + String.join("; ", tried)
                + ". Give one with --pg-url jdbc:postgresql://host:port/db?user=...&password=... or "
                + ProvisioningOptions.PG_URL_ENV + ", or make Docker available", null);
    }

    private static PostgresServer startPrivate(Origin origin, boolean durable) {
        return switch (origin) {
            case BUNDLED -> BundledPostgres.start(durable);
            case CONTAINER -> ContainerPostgres.start();
            default -> throw new ProvisioningException("postgres cannot come from '" + origin.id()
                    + "'; use url, bundled or container", null);
        };
    }

    /** Unpooled connections with the store's own connect and socket timeouts. */
    private static DataSource probeDataSource(PostgresServer server) {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(server.jdbcUrl());
        if (server.user() != null) {
            dataSource.setUser(server.user());
        }
        if (server.password() != null) {
            dataSource.setPassword(server.password());
        }
        dataSource.setConnectTimeout((int) PostgresStoreConfig.DEFAULT_CONNECT_TIMEOUT.toSeconds());
        dataSource.setSocketTimeout((int) PostgresStoreConfig.DEFAULT_SOCKET_TIMEOUT.toSeconds());
        return dataSource;
    }

    private static PostgresStoreConfig.Builder config(PostgresServer server, String prefix) {
        return PostgresStoreConfig.custom(server.jdbcUrl()).credentials(server.user(), server.password())
                .namespacePrefix(prefix);
    }

    private static String freshPrefix() {
        return "lab-" + UUID.randomUUID() + ":";
    }

    private static int unusedPort() {
        // Bound and released at once: nothing listens there afterwards, barring a rare reuse.
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new ProvisioningException("could not find a free local port: " + e.getMessage(), e);
        }
    }

    private static String addressOf(String jdbcUrl) {
        Properties parsed = Driver.parseURL(jdbcUrl, new Properties());
        if (parsed == null) {
            throw new ProvisioningException("not a PostgreSQL JDBC URL: " + jdbcUrl, null);
        }
        return parsed.getProperty("PGHOST", "localhost").split(",")[0] + ":"
                + parsed.getProperty("PGPORT", "5432").split(",")[0];
    }

    private static void closeQuietly(AutoCloseable resource) {
        try {
            resource.close();
        } catch (Exception e) {
            // Shutting down: one failure must not keep the other servers running.
            LOG.warn("while stopping postgres: {}", e.getMessage());
        }
    }

    /** A store whose server is gone, and how that came about. */
    private record Outage(IdempotencyStore store, String how) implements StoreOutage {
        @Override
        public void close() {
            store.close();
        }
    }
}
