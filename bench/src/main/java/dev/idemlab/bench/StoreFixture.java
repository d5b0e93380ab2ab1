package dev.idemlab.bench;

import dev.idemlab.lab.load.raw.RawStore;
import dev.idemlab.lab.load.raw.RawStores;
import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.ServerInfo;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.infra.StoreBackends;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One store for one benchmark trial: the server the lab's own infra provisions, a coordinator over
 * an idempotency store on it, and a raw client on the same server for the baselines. Opened in
 * {@code @Setup(Level.Trial)}, closed in {@code @TearDown}; closing stops only the servers it started.
 *
 * <p>When the system property {@value #SERVER_LOG_PROPERTY} names a file, the server's
 * description is appended to it, so the summary page can say which server versions produced it, and
 * with what durability. When {@value #DURABLE_PROPERTY} is {@code true}, private servers run the lab's
 * durable configuration (see {@code ProvisioningOptions#durable()}); otherwise the fast one.
 */
public final class StoreFixture implements AutoCloseable {

    /** The system property naming the file that collects server descriptions. */
    public static final String SERVER_LOG_PROPERTY = "idemlab.bench.serverLog";
    /** The system property that asks for durable servers. */
    public static final String DURABLE_PROPERTY = "idemlab.bench.durable";

    private final StoreKind kind;
    private final IdempotencyConfig config;
    private final StoreBackend backend;
    private final RawStore raw;
    // Replaced between iterations by forgetRecords(), read by every worker thread.
    private volatile IdempotencyStore store;
    private volatile IdempotencyCoordinator coordinator;

    private StoreFixture(StoreKind kind, IdempotencyConfig config, StoreBackend backend, RawStore raw) {
        this.kind = kind;
        this.config = config;
        this.backend = backend;
        this.raw = raw;
        openCoordinator();
    }

    /** Provisions {@code kind}'s server and a coordinator with {@code policy} on it. */
    public static StoreFixture open(StoreKind kind, InFlightPolicy policy) {
        IdempotencyConfig config = IdempotencyConfig.custom().policy(policy).build();
        StoreBackend backend = StoreBackends.open(kind.backendName(),
                ProvisioningOptions.defaults().withDurable(Boolean.getBoolean(DURABLE_PROPERTY)));
        try {
            RawStore raw = RawStores.open(backend);
            logServer(backend.server());
            return new StoreFixture(kind, config, backend, raw);
        } catch (RuntimeException e) {
            backend.close();
            throw e;
        }
    }

    public StoreKind kind() {
        return kind;
    }

    public IdempotencyCoordinator coordinator() {
        return coordinator;
    }

    /** The idempotency store under the coordinator. */
    public IdempotencyStore store() {
        return store;
    }

    /** The lab backend that provisioned the server. */
    public StoreBackend backend() {
        return backend;
    }

    /** The raw client on the same server. */
    public RawStore raw() {
        return raw;
    }

    /**
     * Drops the records a fresh-key benchmark piled up, between iterations. Only the in-process store
     * needs it: there every record is heap the next iteration's garbage collector must walk. A network
     * store's records live in a private server (or a fresh key prefix) and expire by their ttl.
     */
    public void forgetRecords() {
        if (kind != StoreKind.MEMORY) {
            return;
        }
        store.close();
        openCoordinator();
        raw.forgetKeys();
    }

    @Override
    public void close() {
        try {
            raw.close();
            store.close();
        } finally {
            backend.close();
        }
    }

    private void openCoordinator() {
        store = backend.openStore();
        coordinator = IdempotencyCoordinator.builder(store).config(config).build();
    }

    private static void logServer(ServerInfo server) {
        String file = System.getProperty(SERVER_LOG_PROPERTY);
        if (file == null || file.isBlank()) {
            return;
        }
        try {
            Files.writeString(Path.of(file), server.describeWithDurability() + System.lineSeparator(), StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append the server description to " + file, e);
        }
    }
}
