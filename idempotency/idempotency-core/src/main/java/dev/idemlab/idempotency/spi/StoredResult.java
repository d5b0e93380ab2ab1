package dev.idemlab.idempotency.spi;

import java.util.Objects;

/**
 * The result a completed record holds: the encoded JSON, or a note that the action ran but its
 * result was not stored (too large, or not encodable), so that a replay fails clearly instead of
 * running the action again.
 *
 * @param json the result as JSON; {@code null} when not stored
 * @param notStoredReason why the result was not stored; {@code null} when it was
 */
public record StoredResult(String json, String notStoredReason) {

    public StoredResult {
        if ((json == null) == (notStoredReason == null)) {
            throw new IllegalArgumentException("exactly one of json and notStoredReason must be set");
        }
    }

    /** A stored JSON result. */
    public static StoredResult of(String json) {
        return new StoredResult(Objects.requireNonNull(json, "json"), null);
    }

    /** A record that says the action ran but its result was not stored. */
    public static StoredResult notStored(String reason) {
        return new StoredResult(null, Objects.requireNonNull(reason, "reason"));
    }

    /** Whether the result itself is here to replay. */
    public boolean isStored() {
        return json != null;
    }
}
