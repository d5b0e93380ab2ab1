package dev.idemlab.idempotency.spi;

import java.time.Duration;
import java.util.Objects;

/**
 * What a store holds under one namespace ({@code operation:key}) while it is live. An expired
 * record is never returned: it counts as absent.
 */
public sealed interface IdempotencyRecord {

    /** The fingerprint of the request that created the record. */
    String fingerprint();

    /**
     * A reservation: an attempt holds the key until it completes, releases it, or its lease runs out.
     *
     * @param token the owner token of the attempt holding the reservation
     * @param fingerprint the request's fingerprint
     * @param leaseRemaining how long the lease has left, by the store's clock
     */
    record Pending(String token, String fingerprint, Duration leaseRemaining) implements IdempotencyRecord {
        public Pending {
            Objects.requireNonNull(token, "token");
            Objects.requireNonNull(fingerprint, "fingerprint");
            Objects.requireNonNull(leaseRemaining, "leaseRemaining");
        }
    }

    /**
     * A finished request and its result, kept for the record's ttl.
     *
     * @param fingerprint the request's fingerprint
     * @param result the stored result, or the note that it was not stored
     */
    record Completed(String fingerprint, StoredResult result) implements IdempotencyRecord {
        public Completed {
            Objects.requireNonNull(fingerprint, "fingerprint");
            Objects.requireNonNull(result, "result");
        }
    }
}
