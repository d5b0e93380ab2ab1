package dev.idemlab.idempotency.spi;

import java.time.Duration;
import java.util.Optional;

/**
 * Where idempotency records live (the store SPI; {@code idempotency-store-tck} checks an
 * implementation against this contract). Each operation is atomic and, on a network store, one round trip.
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
     * Extends the live reservation held by {@code token} to {@code lease} from now: the holder's
     * heartbeat while its action runs.
     *
     * @return {@code false} if {@code token} no longer holds a live reservation; nothing is written then
     */
    boolean renew(String namespace, String token, Duration lease);

    /**
     * Turns the reservation held by {@code token} into a completed record kept for {@code ttl}. A
     * holder whose lease ran out while the key stayed absent completes it too: nobody else ran the
     * action, so its result is the one to replay (late completion).
     *
     * @param fingerprint the request's fingerprint, written with the record when the reservation is
     *     gone (late completion); a live reservation keeps its own
     * @return {@code false} if another attempt holds or completed the key (the caller is stale);
     *     nothing is written then
     */
    boolean complete(String namespace, String token, String fingerprint, StoredResult result, Duration ttl);

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

    /**
     * The prefix this store puts in front of every namespace it names a record by
     * ({@link StoreKeys#of}), which keeps apart tenants (services, environments) that share one server.
     * The coordinator derives each call's downstream key from the prefix and the namespace together, so
     * two tenants' identical keys, kept apart here, never meet at a provider either. It must not change
     * while the store is open.
     *
     * @return the prefix, without braces; the empty string (the default) for a store without one
     */
    default String keyPrefix() {
        return "";
    }

    /** Releases client resources (connections, pools). Does not stop any server. */
    @Override
    default void close() { }
}
