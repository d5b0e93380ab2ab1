package dev.idemlab.idempotency.spi;

import dev.idemlab.idempotency.ContextualAction;

/**
 * An action whose effect lives in the store's own database (an order row, a ledger entry), so that
 * the key's record can be completed in the effect's own transaction: see {@link LocalTransaction}. A
 * store module that offers it builds these (PostgreSQL's {@code LocalEffects}); the coordinator takes
 * one wherever it takes a {@link ContextualAction}.
 *
 * <p>The holder of the key runs the effect in {@link #begin()}'s transaction, which also completes the
 * record. {@link #run} is what runs without a reservation: a call with no key, or one the coordinator
 * failed open for (the store's reserve failed): the effect in a transaction of its own, committed
 * without a record, as any action runs then.
 *
 * @param <T> the action's result
 * @param <E> the checked exception the action may throw, or {@link RuntimeException}
 */
public interface TransactionalAction<T, E extends Exception> extends ContextualAction<T, E> {

    /**
     * Opens the transaction the holder's effect and the record's completion share.
     *
     * @throws IdempotencyStoreException if no transaction could be opened; nothing ran then
     */
    LocalTransaction<T, E> begin();
}
