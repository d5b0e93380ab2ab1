package dev.idemlab.lab.faults;

import dev.idemlab.idempotency.Fingerprint;
import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.lab.infra.PostgresBackend;
import dev.idemlab.lab.infra.RedisBackend;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.FakePaymentProvider;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * What a fault case works with on one store: fresh store clients, coordinators over them, a counting
 * provider, and a side door to the server (a raw Redis connection, a JDBC connection) to inject the
 * fault with. Everything it opens it closes. Not thread-safe: one case at a time.
 */
final class FaultRig implements AutoCloseable {

    static final ResultCodec<Charge> CHARGE = ResultCodec.json(Charge.class);

    private final StoreBackend backend;
    private final List<AutoCloseable> opened = new ArrayList<>();
    private RedisCommands<String, String> redis;

    FaultRig(StoreBackend backend) {
        this.backend = backend;
    }

    StoreBackend backend() {
        return backend;
    }

    String storeName() {
        return backend.name();
    }

    /** A fresh store client with keys of its own. */
    IdempotencyStore store() {
        IdempotencyStore store = backend.openStore();
        opened.add(store);
        return store;
    }

    IdempotencyCoordinator coordinator(IdempotencyStore store, IdempotencyConfig config) {
        return IdempotencyCoordinator.builder(store).config(config).build();
    }

    IdempotencyCoordinator coordinator(IdempotencyConfig config) {
        return coordinator(store(), config);
    }

    static FakePaymentProvider provider() {
        return FakePaymentProvider.builder().latency(Duration.ZERO).build();
    }

    static IdempotentCall call(String key, long amount) {
        return IdempotentCall.of("payment.charge", key, Fingerprint.ofFields(Map.of("order_id", "o-1", "amount", amount)));
    }

    static String key() {
        return "fault-" + UUID.randomUUID();
    }

    /** A store client whose server was stopped for real after it connected; the caller closes it. */
    dev.idemlab.lab.infra.StoreOutage outage() {
        return backend.openOutage();
    }

    /** A raw connection to the Redis behind the store. */
    RedisCommands<String, String> redis() {
        if (redis == null) {
            RedisClient client = RedisClient.create(((RedisBackend) backend).uri());
            StatefulRedisConnection<String, String> connection = client.connect();
            opened.add(connection);
            opened.add(client::shutdown);
            redis = connection.sync();
        }
        return redis;
    }

    /** A plain JDBC connection to the PostgreSQL behind the store; the caller closes it. */
    Connection postgres() throws SQLException {
        PostgresBackend postgres = (PostgresBackend) backend;
        return DriverManager.getConnection(postgres.jdbcUrl(), postgres.user(), postgres.password());
    }

    @Override
    public void close() {
        for (int i = opened.size() - 1; i >= 0; i--) {
            try {
                opened.get(i).close();
            } catch (Exception e) {
                // best effort: the backend's close stops the servers anyway
            }
        }
        opened.clear();
    }
}
