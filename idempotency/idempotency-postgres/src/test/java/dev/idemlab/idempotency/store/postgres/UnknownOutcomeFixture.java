package dev.idemlab.idempotency.store.postgres;

import dev.idemlab.idempotency.Fingerprint;
import dev.idemlab.idempotency.IdempotencyContext;
import dev.idemlab.idempotency.IdempotencyFencedException;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotencyKeyReuseException;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.testsupport.TestPostgres;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.ProviderTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
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
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the tests of issue 42's unknown outcomes share: a PostgreSQL server and store, an orders table, a
 * shop whose charge step has a policy on a provider that does not deduplicate, and reads of what landed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class UnknownOutcomeFixture {

    private static final ResultCodec<Workflow.Progress> PROGRESS = ResultCodec.json(Workflow.Progress.class);

    final String orders = "orders_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
    TestPostgres server;
    PostgresIdempotencyStore store;
    IdempotencyCoordinator coordinator;

    @BeforeAll
    void start() throws SQLException {
        server = TestPostgres.provide();
        store = PostgresTable.openStore(server);
        coordinator = IdempotencyCoordinator.builder(store).build();
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE " + orders + " (id bigserial PRIMARY KEY, idempotency_key text NOT NULL, "
                    + "status text NOT NULL, charge_id text)");
        }
    }

    @AfterAll
    void stop() {
        if (store != null) {
            store.close();
        }
        if (server != null) {
            server.close();
        }
    }

    /** A shop whose charge step has {@code ifUnknown}, on a provider that does not deduplicate. */
    final class Shop {
        final FakePaymentProvider provider = FakePaymentProvider.builder().latency(Duration.ZERO).build();
        final String key = "order-" + UUID.randomUUID();
        final List<String> lookups = new ArrayList<>();
        private final IfOutcomeUnknown ifUnknown;
        private final long amount;

        Shop(IfOutcomeUnknown ifUnknown, long amount) {
            this.ifUnknown = ifUnknown;
            this.amount = amount;
        }

        IdempotentResult<Workflow.Progress> place() throws Exception {
            return place(amount);
        }

        IdempotentResult<Workflow.Progress> place(long amountOfThisRequest) throws Exception {
            IdempotentCall call = IdempotentCall.of("order.place", key,
                    Fingerprint.ofFields(Map.of("amount", amountOfThisRequest)));
            return coordinator.call(call, PROGRESS, LocalEffects.of(store).workflow(workflow(amountOfThisRequest)));
        }

        /** Runs {@code workflow} (another deploy of the shop's) for this shop's request. */
        IdempotentResult<Workflow.Progress> place(Workflow workflow) throws Exception {
            IdempotentCall call = IdempotentCall.of("order.place", key, Fingerprint.ofFields(Map.of("amount", amount)));
            return coordinator.call(call, PROGRESS, LocalEffects.of(store).workflow(workflow));
        }

        private Workflow workflow(long amountOfThisRequest) {
            Workflow.RemoteStep charge = (progress, downstreamKey, context) -> provider.charge(
                    progress.output("order_created"), amountOfThisRequest, downstreamKey).id();
            Workflow.Builder builder = Workflow.builder()
                    .local("order_created", (connection, progress, context) -> insertOrder(connection, key));
            builder = ifUnknown == IfOutcomeUnknown.ASK_FIRST
                    ? builder.remoteAskingFirst("charge_created", (progress, downstreamKey, context) -> {
                        lookups.add(downstreamKey);
                        return provider.chargesWithKey(downstreamKey).stream().findFirst().map(Charge::id);
                    }, charge)
                    : builder.remote("charge_created", ifUnknown, charge);
            return builder.local("order_paid", (connection, progress, context) -> markPaid(connection,
                    progress.output("order_created"), progress.output("charge_created"))).build();
        }
    }

    String insertOrder(Connection connection, String key) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + orders
                + " (idempotency_key, status) VALUES (?, 'created') RETURNING id")) {
            insert.setString(1, key);
            try (ResultSet row = insert.executeQuery()) {
                row.next();
                return Long.toString(row.getLong(1));
            }
        }
    }

    String markPaid(Connection connection, String order, String charge) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement("UPDATE " + orders
                + " SET status = 'paid', charge_id = ? WHERE id = ?")) {
            update.setString(1, charge);
            update.setLong(2, Long.parseLong(order));
            update.executeUpdate();
        }
        return order;
    }

    /** Each order of {@code key} as {@code status charge}, in the order they were written. */
    List<String> ordersOf(String key) throws SQLException {
        return strings("SELECT status || ' ' || coalesce(charge_id, 'null') FROM " + orders
                + " WHERE idempotency_key = ? ORDER BY id", key);
    }

    /**
     * Makes the markers of {@code key} as old as its holder's lease and the step's provider deadline: the
     * age a marker must reach before a lookup or a "not done" is trusted. Set in the database, not waited for.
     */
    void settle(String key) throws SQLException {
        update("UPDATE " + store.config().table() + "_step_starts SET settle_after = now() WHERE namespace = ?", key);
    }

    /** Moves past the ttl everything of {@code key} that expires (the record, its points, its markers). */
    void dayTwo(String key) throws SQLException {
        String table = store.config().table();
        for (String each : List.of(table, table + "_steps", table + "_step_starts")) {
            update("UPDATE " + each + " SET expires_at = now() - interval '1 second' WHERE namespace = ? "
                    + "AND isfinite(expires_at)", key);
        }
    }

    void update(String sql, String key) throws SQLException {
        try (Connection connection = connect(); PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, store.keyOf("order.place:" + key));
            statement.executeUpdate();
        }
    }

    /** The started markers kept for {@code key}, as {@code phase=state}, in step order. */
    List<String> markers(String key) throws SQLException {
        return strings("SELECT phase || '=' || state FROM " + store.config().table() + "_step_starts "
                + "WHERE namespace = ? ORDER BY step", store.keyOf("order.place:" + key));
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

    Connection connect() throws SQLException {
        return DriverManager.getConnection(server.jdbcUrl(), server.user(), server.password());
    }
}
