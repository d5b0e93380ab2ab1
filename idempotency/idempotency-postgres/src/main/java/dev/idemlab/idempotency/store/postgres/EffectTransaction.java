package dev.idemlab.idempotency.store.postgres;

import dev.idemlab.idempotency.IdempotencyContext;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.LocalTransaction;
import dev.idemlab.idempotency.spi.StoredResult;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;

/**
 * One transaction on the store's pool at READ COMMITTED, in which a {@link JdbcEffect} writes its effect
 * and the table's complete function completes the key's record, token-checked, before the commit.
 * Completing last keeps the record's row unlocked while the effect runs, so the holder's renewals pass.
 * Not thread-safe: one per call.
 */
final class EffectTransaction<T, E extends Exception> implements LocalTransaction<T, E> {

    private final PostgresIdempotencyStore store;
    private final JdbcEffect<T, E> effect;
    private final Connection connection;
    private boolean ended;
    private boolean closed;

    private EffectTransaction(PostgresIdempotencyStore store, JdbcEffect<T, E> effect, Connection connection) {
        this.store = store;
        this.effect = effect;
        this.connection = connection;
    }

    /** Opens a connection of the store's pool in a transaction. */
    static <T, E extends Exception> EffectTransaction<T, E> begin(PostgresIdempotencyStore store,
                                                                 JdbcEffect<T, E> effect) {
        return new EffectTransaction<>(store, effect, Transactions.open(store));
    }

    @Override
    public T run(IdempotencyContext context) throws E {
        return effect.run(connection, context);
    }

    @Override
    public boolean complete(String namespace, String token, String fingerprint, StoredResult result, Duration ttl) {
        ended = Transactions.completeAndCommit(store, connection, namespace, token, fingerprint, result, ttl);
        return ended;
    }

    /** Commits the effect without a record: a call that runs without a reservation. */
    void commitAlone() {
        try {
            connection.commit();
            ended = true;
        } catch (SQLException e) {
            throw store.failure("commit", null, e);
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        Transactions.end(connection, ended);
    }
}
