package dev.idemlab.idempotency.spi;

import java.util.Objects;

/**
 * The answer to {@link IdempotencyStore#reserve}: either the caller now holds the key, or the
 * live record that stopped it.
 */
public sealed interface Reservation {

    /** The key was absent (or expired, or already held by this very token) and is now held by the caller. */
    record Acquired() implements Reservation { }

    /** Someone else's live record is there. */
    record Found(IdempotencyRecord record) implements Reservation {
        public Found {
            Objects.requireNonNull(record, "record");
        }
    }

    /** The shared {@link Acquired} instance. */
    Acquired ACQUIRED = new Acquired();

    /** Wraps an existing record. */
    static Reservation found(IdempotencyRecord record) {
        return new Found(record);
    }
}
