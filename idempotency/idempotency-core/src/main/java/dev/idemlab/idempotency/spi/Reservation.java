package dev.idemlab.idempotency.spi;

import java.util.Objects;

/**
 * The answer to {@link IdempotencyStore#reserve}: either the caller now holds the key, or the
 * live record that stopped it.
 */
public sealed interface Reservation {

    /**
     * The key was absent (or expired, or already held by this very token) and is now held by the caller.
     *
     * @param fence the reservation's fencing number: greater than that of every earlier reservation
     *     of the key, so that a resource can refuse a holder whose lease was taken over
     */
    record Acquired(long fence) implements Reservation { }

    /** Someone else's live record is there. */
    record Found(IdempotencyRecord record) implements Reservation {
        public Found {
            Objects.requireNonNull(record, "record");
        }
    }

    /** The caller holds the key now, with this fencing number. */
    static Reservation acquired(long fence) {
        return new Acquired(fence);
    }

    /** Wraps an existing record. */
    static Reservation found(IdempotencyRecord record) {
        return new Found(record);
    }
}
