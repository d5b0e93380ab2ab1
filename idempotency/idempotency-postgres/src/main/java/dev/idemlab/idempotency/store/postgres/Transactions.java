package dev.idemlab.idempotency.store.postgres;

import dev.idemlab.idempotency.spi.StoredResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;

/**
 * The statements a local effect's transaction runs beside the effect: open, complete the record with
 * the effect, end. Stateless.
 */
final class Transactions {

    private static final Logger LOG = LoggerFactory.getLogger(Transactions.class);

    private Transactions() { }

    /**
     * A connection of the store's pool in a READ COMMITTED transaction: each statement of the effect and
     * of the completion reads the newest committed rows, so the holder's own renewals, committed
     * meanwhile on other connections, never make the completion fail as a serialization conflict.
     */
    static Connection open(PostgresIdempotencyStore store) {
        Connection connection = null;
        try {
            connection = store.pool().getConnection();
            connection.setAutoCommit(false);
            connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            return connection;
        } catch (SQLException | RuntimeException e) {
            if (connection != null) {
                end(connection, false);
            }
            throw store.failure("begin", null, e);
        }
    }

    /**
     * Completes the reservation held by {@code token} on {@code connection}, in its transaction, and
     * commits; false (and rolled back) if {@code token} no longer holds the key. The recovery points of
     * the namespace are forgotten in the same transaction.
     *
     * @throws dev.idemlab.idempotency.spi.IdempotencyStoreException if a statement or the commit failed:
     *     everything the transaction wrote landed, or none of it
     */
    static boolean completeAndCommit(PostgresIdempotencyStore store, Connection connection, String namespace,
                                     String token, String fingerprint, StoredResult result, Duration ttl) {
        try {
            if (!complete(store, connection, namespace, token, fingerprint, result, ttl)) {
                connection.rollback();
                return false;
            }
            connection.commit();
            return true;
        } catch (SQLException | RuntimeException e) {
            throw store.failure("complete", namespace, e);
        }
    }

    /**
     * Completes the reservation held by {@code token} on {@code connection}, in its transaction, and
     * forgets the namespace's recovery points and started markers there, committing nothing: the
     * transaction's owner commits, or rolls back when this returns false ({@code token} no longer holds
     * the key).
     */
    static boolean complete(PostgresIdempotencyStore store, Connection connection, String namespace,
                            String token, String fingerprint, StoredResult result, Duration ttl)
            throws SQLException {
        RecordStatements sql = store.statements();
        boolean completed;
        try (PreparedStatement statement = connection.prepareStatement(sql.complete)) {
            statement.setString(1, store.keyOf(namespace));
            statement.setString(2, token);
            statement.setString(3, fingerprint);
            statement.setString(4, result.json());
            statement.setString(5, result.notStoredReason());
            statement.setLong(6, ttl.toNanos() / 1000);
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                completed = row.getBoolean(1);
            }
        }
        if (!completed) {
            return false;
        }
        try (PreparedStatement statement = connection.prepareStatement(sql.forgetSteps)) {
            statement.setString(1, store.keyOf(namespace));
            statement.setString(2, store.keyOf(namespace));
            statement.executeUpdate();
        }
        return true;
    }

    /** Rolls back unless {@code committed}, restores auto-commit and gives the connection back; never throws. */
    static void end(Connection connection, boolean committed) {
        try {
            if (!committed) {
                connection.rollback();
            }
            connection.setAutoCommit(true);
        } catch (SQLException | RuntimeException e) {
            LOG.debug("ending a local effect's transaction failed; its connection is closed", e);
        } finally {
            try {
                connection.close();
            } catch (SQLException | RuntimeException e) {
                LOG.debug("closing a local effect's connection failed", e);
            }
        }
    }
}
