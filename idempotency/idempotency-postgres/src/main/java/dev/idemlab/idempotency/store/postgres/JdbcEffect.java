package dev.idemlab.idempotency.store.postgres;

import dev.idemlab.idempotency.IdempotencyContext;

import java.sql.Connection;

/**
 * A local effect: writes to the store's own database through {@code connection}, inside a transaction
 * that {@link LocalEffects} opened and commits. It must neither commit, roll back nor close the
 * connection, nor change its auto-commit mode.
 *
 * @param <T> its result
 * @param <E> the checked exception it may throw ({@link java.sql.SQLException}, say), or {@link RuntimeException}
 */
@FunctionalInterface
public interface JdbcEffect<T, E extends Exception> {

    /** Writes the effect, once per transaction; the transaction commits only with the key's record. */
    T run(Connection connection, IdempotencyContext context) throws E;
}
