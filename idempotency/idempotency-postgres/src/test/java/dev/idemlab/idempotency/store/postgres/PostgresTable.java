package dev.idemlab.idempotency.store.postgres;

import dev.idemlab.idempotency.testsupport.TestPostgres;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * Reaches behind a store into its table, as an operator or a broken writer would: to make a record
 * expire by the server's clock, or to plant a row the store would never write. Not thread-safe.
 */
final class PostgresTable {

    private final PostgresStoreConfig config;
    private final PostgresIdempotencyStore store;

    PostgresTable(PostgresIdempotencyStore store) {
        this.config = store.config();
        this.store = store;
    }

    /**
     * A store on {@code server} with a namespace prefix of its own, so that stores of one test share the
     * table without seeing each other's records. On a server given by URL the table is in the server's
     * schema of the test's own, which its close drops. The caller closes it.
     */
    static PostgresIdempotencyStore openStore(TestPostgres server) {
        return new PostgresIdempotencyStore(PostgresStoreConfig.custom(server.jdbcUrl())
                .credentials(server.user(), server.password())
                .namespacePrefix("test-" + java.util.UUID.randomUUID() + ":").build());
    }

    /** Moves the record's expiry one second into the past, by the server's clock. */
    void expire(String namespace) {
        execute("UPDATE " + config.table() + " SET expires_at = now() - interval '1 second' WHERE namespace = ?",
                store.keyOf(namespace));
    }

    /** Writes a row as it stands, live for an hour. */
    void plant(String namespace, String state, String token, String fingerprint, String json, String reason) {
        execute("INSERT INTO " + config.table() + " (namespace, state, token, fingerprint, result_json, "
                        + "not_stored_reason, expires_at) VALUES (?, ?, ?, ?, ?, ?, now() + interval '1 hour')",
                store.keyOf(namespace), state, token, fingerprint, json, reason);
    }

    /** Sets the row's expires_at to an SQL expression, as a hand-made row might have it. */
    void setExpiry(String namespace, String expression) {
        execute("UPDATE " + config.table() + " SET expires_at = " + expression + " WHERE namespace = ?",
                store.keyOf(namespace));
    }

    /** Creates a table as schema version 1 made it: no fence, and its version comment. */
    void createVersionOneTable(String name) {
        execute("CREATE TABLE " + name + " (namespace text PRIMARY KEY, state text NOT NULL, token text, "
                + "fingerprint text NOT NULL, result_json text, not_stored_reason text, expires_at timestamptz NOT NULL)");
        execute("COMMENT ON TABLE " + name + " IS 'idempotency records, schema version 1'");
    }

    /** Creates a table as schema version 2 made it (no watched column) holding one completed record. */
    void createVersionTwoTable(String name, String namespace, String fingerprint, String json) {
        execute("CREATE TABLE " + name + " (namespace text PRIMARY KEY, state text NOT NULL, token text, "
                + "fingerprint text NOT NULL, result_json text, not_stored_reason text, expires_at timestamptz NOT NULL, "
                + "fence bigint)");
        execute("CREATE SEQUENCE " + name + "_fence_seq");
        execute("COMMENT ON TABLE " + name + " IS 'idempotency records, schema version 2'");
        execute("INSERT INTO " + name + " (namespace, state, fingerprint, result_json, expires_at) "
                + "VALUES (?, 'completed', ?, ?, now() + interval '1 hour')", store.keyOf(namespace), fingerprint, json);
    }

    /**
     * Creates a table as schema version 3 made it, with the recovery points' table as version 3 had it
     * (no fingerprint), holding one recovery point that an unfinished workflow of {@code namespace} left.
     */
    void createVersionThreeTable(String name, String namespace, String phase, String output) {
        createVersionTwoTable(name, "unused:" + java.util.UUID.randomUUID(), "-", "\"-\"");
        execute("ALTER TABLE " + name + " ADD COLUMN watched boolean NOT NULL DEFAULT false");
        execute("COMMENT ON TABLE " + name + " IS 'idempotency records, schema version 3'");
        execute("CREATE TABLE " + name + "_steps (namespace text NOT NULL, step integer NOT NULL, phase text NOT NULL, "
                + "output text, expires_at timestamptz NOT NULL, PRIMARY KEY (namespace, step))");
        execute("INSERT INTO " + name + "_steps (namespace, step, phase, output, expires_at) "
                + "VALUES (?, 0, ?, ?, now() + interval '1 hour')", store.keyOf(namespace), phase, output);
    }

    /** Whether a waiter marked the record as watched, so that its ending is notified. */
    boolean watched(String namespace) {
        try (Connection connection = connect();
             PreparedStatement statement = connection.prepareStatement(
                     "SELECT watched FROM " + config.table() + " WHERE namespace = ?")) {
            statement.setString(1, store.keyOf(namespace));
            try (var row = statement.executeQuery()) {
                row.next();
                return row.getBoolean(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Takes an exclusive lock on the table, as a long migration would, until the returned handle closes. */
    AutoCloseable lockTable() throws SQLException {
        Connection connection = connect();
        connection.setAutoCommit(false);
        try (var statement = connection.createStatement()) {
            statement.execute("LOCK TABLE " + config.table() + " IN ACCESS EXCLUSIVE MODE");
        }
        return () -> {
            connection.rollback();
            connection.close();
        };
    }

    /** The row's version ({@code xmin}, the transaction that last wrote it) and place ({@code ctid}). */
    String rowVersion(String namespace) {
        return single("SELECT xmin::text || '@' || ctid::text FROM " + config.table() + " WHERE namespace = ?",
                store.keyOf(namespace));
    }

    /** The last fencing number the table's sequence handed out. */
    long lastFence() {
        return Long.parseLong(single("SELECT last_value::text FROM " + config.table() + "_fence_seq WHERE ? IS NOT NULL", "-"));
    }

    /**
     * Hands the fence sequence back to {@code value}, as a restore from an older backup, or a promoted
     * replica that had not replayed the last reservations, leaves it.
     */
    void rewindFenceSequence(long value) {
        single("SELECT setval('" + config.table() + "_fence_seq', ?::bigint)::text", Long.toString(value));
    }

    /** Deletes the record, as a server that lost the last transactions has lost it. */
    void lose(String namespace) {
        execute("DELETE FROM " + config.table() + " WHERE namespace = ?", store.keyOf(namespace));
    }

    /** Sets the record's fence, as one written under a clock that has since stepped back. */
    void setFence(String namespace, long fence) {
        execute("UPDATE " + config.table() + " SET fence = ?::bigint WHERE namespace = ?", Long.toString(fence),
                store.keyOf(namespace));
    }

    /** The server's clock in microseconds. */
    long serverMicros() {
        return Long.parseLong(single("SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint::text"
                + " WHERE ? IS NOT NULL", "-"));
    }

    private String single(String sql, String parameter) {
        try (Connection connection = connect(); PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, parameter);
            try (var row = statement.executeQuery()) {
                row.next();
                return row.getString(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    long countRows(String namespace) {
        try (Connection connection = connect();
             PreparedStatement statement = connection.prepareStatement(
                     "SELECT count(*) FROM " + config.table() + " WHERE namespace = ?")) {
            statement.setString(1, store.keyOf(namespace));
            try (var row = statement.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Rows of this store's prefix that have expired by the server's clock and are still there. */
    long countExpired() {
        try (Connection connection = connect();
             PreparedStatement statement = connection.prepareStatement("SELECT count(*) FROM " + config.table()
                     + " WHERE left(namespace, length(?)) = ? AND expires_at <= now()")) {
            statement.setString(1, config.namespacePrefix());
            statement.setString(2, config.namespacePrefix());
            try (var row = statement.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private void execute(String sql, String... parameters) {
        try (Connection connection = connect(); PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setString(i + 1, parameters[i]);
            }
            statement.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private Connection connect() throws SQLException {
        return DriverManager.getConnection(config.jdbcUrl(), config.user(), config.password());
    }
}
