package dev.idemlab.idempotency.servlet;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;

/**
 * What {@link IdempotencyFilter} answers instead of running a request: a missing, malformed or reused
 * key, a key whose first request is still in flight, a client it cannot scope the key to. A
 * {@link RefusalWriter} turns it into the response. Immutable.
 *
 * @param status the HTTP status: 400, 401, 409, 413, 422, or the status of a coordinator failure (503)
 * @param code the refusal's stable name, e.g. {@code idempotency-key-in-flight}, {@code idempotency-key-reused}
 * @param title a short summary that does not change between occurrences
 * @param detail this occurrence, stating the rule that was broken
 * @param retryAfter when to try again, for a key in flight (the coordinator's hint: the expected duration less the
 *     holder's age, never past its lease); {@code null} otherwise
 * @param documentation where the route's idempotency rules are documented; {@code null} when it names none
 */
public record Refusal(int status, String code, String title, String detail, Duration retryAfter, URI documentation) {

    /** The key's first request is still in flight (409). */
    public static final String KEY_IN_FLIGHT = "idempotency-key-in-flight";
    /** The key was used before with another request (422 by default, the route's mismatch status). */
    public static final String KEY_REUSED = "idempotency-key-reused";
    /** A required key is missing (400). */
    public static final String KEY_MISSING = "idempotency-key-missing";
    /** The key's field breaks the syntax the route accepts (400). */
    public static final String KEY_MALFORMED = "idempotency-key-malformed";
    /** The key breaks the core's rule on keys: 1 to 255 characters, no control characters (400). */
    public static final String KEY_INVALID = "idempotency-key-invalid";

    public Refusal {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(title, "title");
        Objects.requireNonNull(detail, "detail");
    }
}
