package dev.idemlab.lab.localeffects;

import dev.idemlab.idempotency.Fingerprint;
import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.store.postgres.LocalEffects;
import dev.idemlab.idempotency.store.postgres.PostgresIdempotencyStore;
import dev.idemlab.idempotency.store.postgres.PostgresStoreConfig;
import dev.idemlab.idempotency.store.postgres.Workflow;
import dev.idemlab.lab.infra.PostgresBackend;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.StoreBackends;
import dev.idemlab.lab.scenario.DroppedRenewals;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.assertj.core.api.Assertions.assertThat;
/**
 * A real PostgreSQL with an idempotency table and an {@code orders} table in the same database, shared by
 * the local-effect tests of issue 27. Every assertion of a subclass reads what landed: the orders table,
 * the recovery points, the provider's ledger. Holders are paused on latches; a lease runs out by the
 * server's clock, which the tests wait for with Awaitility, never by sleeping.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class OrdersOnPostgres {

    static final Duration SHORT_LEASE = Duration.ofSeconds(1);
    static final Duration PATIENCE = Duration.ofSeconds(30);
    static final ResultCodec<Long> ORDER_ID = ResultCodec.json(Long.class);
    static final ResultCodec<Workflow.Progress> PROGRESS = ResultCodec.json(Workflow.Progress.class);

    final String table = "local_effects_" + UUID.randomUUID().toString().substring(0, 8);
    final String orders = table + "_orders";
    final ExecutorService holders = Executors.newCachedThreadPool();
    PostgresBackend postgres;
    PostgresIdempotencyStore store;
    LocalEffects local;
    IdempotencyCoordinator coordinator;

    @BeforeAll
    void start() throws SQLException {
        postgres = (PostgresBackend) StoreBackends.open("postgres", ProvisioningOptions.defaults());
        store = new PostgresIdempotencyStore(PostgresStoreConfig.custom(postgres.jdbcUrl())
                .credentials(postgres.user(), postgres.password()).table(table).build());
        local = LocalEffects.of(store);
        coordinator = IdempotencyCoordinator.builder(store).build();
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            // No unique key on purpose: a stale holder's uncommitted row must not block the new holder's insert.
            statement.execute("CREATE TABLE " + orders + " (id bigserial PRIMARY KEY, idempotency_key text NOT NULL, "
                    + "placed_by text NOT NULL, paid boolean NOT NULL DEFAULT false, charge_id text)");
        }
    }

    @AfterAll
    void stop() throws SQLException {
        holders.shutdownNow();
        try {
            if (store != null) {
                try (Connection connection = connect(); Statement statement = connection.createStatement()) {
                    statement.execute("DROP TABLE IF EXISTS " + orders + ", " + table + "_steps, " + table + "_step_starts, "
                            + table);
                }
                store.close();
            }
        } finally {
            if (postgres != null) {
                postgres.close();
            }
        }
    }

    IdempotencyCoordinator withDroppedRenewals() {
        return IdempotencyCoordinator.builder(new DroppedRenewals(store))
                .config(IdempotencyConfig.custom().lease(SHORT_LEASE).build()).build();
    }

    /** Waits until the server's clock says the reservation's lease is over (an expired row reads as absent). */
    void awaitLeaseRanOut(IdempotentCall call) {
        Awaitility.await("the lease runs out by the server's clock").atMost(PATIENCE)
                .pollInterval(Duration.ofMillis(50)).until(() -> store.lookup(call.namespace()).isEmpty());
    }

    static IdempotentCall orderCall(String key) {
        return IdempotentCall.of("order.create", key, Fingerprint.ofFields(Map.of("sku", "book", "quantity", 1)));
    }

    static String newKey() {
        return "order-" + UUID.randomUUID();
    }

    long insertOrder(Connection connection, String key, String placedBy) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO " + orders + " (idempotency_key, placed_by) VALUES (?, ?) RETURNING id")) {
            insert.setString(1, key);
            insert.setString(2, placedBy);
            try (ResultSet row = insert.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }

    void markPaid(Connection connection, String orderId, String chargeId) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(
                "UPDATE " + orders + " SET paid = true, charge_id = ? WHERE id = ?")) {
            update.setString(1, chargeId);
            update.setLong(2, Long.parseLong(orderId));
            assertThat(update.executeUpdate()).isEqualTo(1);
        }
    }

    /** Who placed each committed order of {@code key}. */
    List<String> ordersOf(String key) throws SQLException {
        return strings("SELECT placed_by FROM " + orders + " WHERE idempotency_key = ? ORDER BY id", key);
    }

    /** The charge of each committed order of {@code key} that is marked paid. */
    List<String> paidOrders(String key) throws SQLException {
        return strings("SELECT charge_id FROM " + orders + " WHERE idempotency_key = ? AND paid ORDER BY id", key);
    }

    int recoveryPointsOf(String key) throws SQLException {
        return strings("SELECT phase FROM " + table + "_steps WHERE namespace = ?",
                store.keyOf(orderCall(key).namespace())).size();
    }

    List<String> strings(String query, String parameter) throws SQLException {
        try (Connection connection = connect(); PreparedStatement statement = connection.prepareStatement(query)) {
            statement.setString(1, parameter);
            List<String> values = new ArrayList<>();
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    values.add(rows.getString(1));
                }
            }
            return values;
        }
    }

    static int backendPid(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT pg_backend_pid()")) {
            row.next();
            return row.getInt(1);
        }
    }

    /** Ends the server process behind a connection, as a crash or a failover would, and waits until it is gone. */
    void terminate(int pid) throws SQLException {
        try (Connection connection = connect();
             PreparedStatement kill = connection.prepareStatement("SELECT pg_terminate_backend(?)")) {
            kill.setInt(1, pid);
            try (ResultSet row = kill.executeQuery()) {
                row.next();
                assertThat(row.getBoolean(1)).isTrue();
            }
        }
        Awaitility.await("the terminated backend is gone").atMost(PATIENCE).pollInterval(Duration.ofMillis(50))
                .until(() -> strings("SELECT pid::text FROM pg_stat_activity WHERE pid = ?::int", Integer.toString(pid))
                        .isEmpty());
    }

    Connection connect() throws SQLException {
        Properties credentials = new Properties();
        if (postgres.user() != null) {
            credentials.setProperty("user", postgres.user());
        }
        if (postgres.password() != null) {
            credentials.setProperty("password", postgres.password());
        }
        return DriverManager.getConnection(postgres.jdbcUrl(), credentials);
    }
}
