package dev.idemlab.idempotency.spi;

import java.time.Duration;
import java.util.Optional;

/**
 * Where idempotency records live. Each operation is atomic and, on a network store, one round trip.
 * Expiry is decided by the store's own clock (a server's, or an injected ticker), never by comparing
 * two machines' wall clocks; an expired record counts as absent everywhere.
 *
 * <p>A store signals a failure to reach or understand its server with
 * {@link IdempotencyStoreException}. Implementations must be thread-safe.
 */
public interface IdempotencyStore extends AutoCloseable {

    /**
     * Creates a reservation under {@code namespace} unless a live record is there.
     *
     * <p>If the live record is a reservation held by {@code token} itself, the answer is
     * {@link Reservation.Acquired} as well: a reply lost to a timeout and retried must not make the
     * owner wait on its own marker.
     *
     * @param namespace {@code operation:key}
     * @param token the owner token of this attempt
     * @param fingerprint the request's fingerprint
     * @param lease how long the reservation protects the key
     * @return acquired, or the live record that is there
     */
    Reservation reserve(String namespace, String token, String fingerprint, Duration lease);

    /**
     * Turns the reservation held by {@code token} into a completed record kept for {@code ttl}.
     *
     * @return {@code false} if {@code token} no longer holds the reservation (its lease expired and
     *     the key was taken over, or it is gone); nothing is written then
     */
    boolean complete(String namespace, String token, StoredResult result, Duration ttl);

    /**
     * Removes the reservation held by {@code token}, so that a retry runs the action again.
     *
     * @return {@code false} if {@code token} no longer holds the reservation; nothing is removed then
     */
    boolean release(String namespace, String token);

    /** The live record under {@code namespace}, if any. */
    Optional<IdempotencyRecord> lookup(String namespace);

    /** Name, server version and address, for outputs. */
    StoreDescription describe();

    /** Releases client resources (connections, pools). Does not stop any server. */
    @Override
    default void close() { }
}
