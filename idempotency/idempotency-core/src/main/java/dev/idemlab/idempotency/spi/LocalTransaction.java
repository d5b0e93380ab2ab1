package dev.idemlab.idempotency.spi;

import dev.idemlab.idempotency.IdempotencyContext;

import java.time.Duration;

/**
 * One transaction on the store's own database, opened for the holder of a key by a
 * {@link TransactionalAction}: the action's effect is written in it, and so is the completion of the
 * key's record, so that both commit or neither does. A holder whose key was taken over (its lease ran
 * out while it was paused, and another attempt reserved the key) finds its token no longer holds: the
 * completion writes nothing and the transaction, effect included, is rolled back. That is fencing inside
 * the database: a stale holder cannot commit its effect.
 *
 * <p>The coordinator calls {@link #run} once, then {@link #complete} once if it returned, and
 * {@link #close} always. Not thread-safe: one per call, used by the holder's thread only.
 *
 * @param <T> the action's result
 * @param <E> the checked exception the action may throw, or {@link RuntimeException}
 */
public interface LocalTransaction<T, E extends Exception> extends AutoCloseable {

    /**
     * Runs the effect inside the open transaction, without committing it.
     *
     * @throws E whatever the effect threw; the coordinator then closes (rolls back) the transaction
     *     and releases the key
     */
    T run(IdempotencyContext context) throws E;

    /**
     * Completes the reservation held by {@code token} with {@code result} in this transaction, as
     * {@link IdempotencyStore#complete} would, and commits the effect with it.
     *
     * @return {@code false} if {@code token} no longer holds the key: nothing was committed, the effect
     *     was rolled back
     * @throws IdempotencyStoreException if the completion failed, or the commit failed so that whether it
     *     landed is unknown (the connection failed under it): effect and record landed together or not at all
     * @throws RuntimeException any other exception when the commit certainly rolled back (the server refused
     *     it: a deferred constraint, a deadlock; or a hook of the transaction's owner before the commit
     *     threw): nothing landed, and the coordinator releases the key and rethrows it unchanged, as it does
     *     an exception of {@link #run}. A commit that landed returns {@code true}, whatever its owner's hooks
     *     threw after it
     */
    boolean complete(String namespace, String token, String fingerprint, StoredResult result, Duration ttl);

    /** Rolls back whatever was not committed and gives the connection back. Never throws. */
    @Override
    void close();
}
