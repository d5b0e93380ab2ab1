package dev.idemlab.idempotency.servlet.headers;

import dev.idemlab.idempotency.IdempotencyConfig;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@value #NAME} response header: how long a route keeps a key's record and how long an in-flight
 * reservation's lease lasts, as the idempotency-key draft asks a resource to publish its expiry policy
 * (section 2.3, "Idempotency Key Validity and Expiry"), in a form a client reads without the
 * documentation:
 *
 * <pre>{@code Idempotency-Policy: ttl=86400, lease=30}</pre>
 *
 * <p>The value is an RFC 8941 Dictionary of Integers, in seconds:
 * <ul>
 *   <li>{@code ttl}: how long the first answer is kept for replay, counted from when it was stored.
 *       A retry sent within it replays; after it, the key is free and a retry runs the request
 *       again. Rounded down, so a client that retries within it is never wrong.</li>
 *   <li>{@code lease}: how long a request's reservation holds the key without its holder renewing it
 *       (a holder that is alive renews it). A retry while the first request runs is refused with 409
 *       (or waits, where the route allows); once a holder that died has been silent for the lease, a
 *       retry runs the request again. Rounded up, so a client that waits that long has waited long
 *       enough.</li>
 * </ul>
 *
 * <p>Why this form: a Structured Field needs no new parser (the draft already makes
 * {@code Idempotency-Key} one), a Dictionary lets a later version add members that older clients
 * ignore, and seconds as Integers follow {@code Retry-After}, {@code Cache-Control: max-age} and the
 * {@code ttl} of {@code Cache-Status} (RFC 9211). One header rather than two keeps the policy in one
 * place, and the name follows the draft's {@code Idempotency-Key}. It is sent on the first answer and on
 * every replay (beside {@code Idempotent-Replayed: true}, which marks a replay), not on a refusal.
 *
 * <p>Stateless and thread-safe.
 */
public final class ExpiryPolicyHeader {

    /** The header's name. */
    public static final String NAME = "Idempotency-Policy";
    /** The header that marks a replayed response, {@code Idempotent-Replayed: true}, published beside it. */
    public static final String REPLAYED_NAME = "Idempotent-Replayed";

    // RFC 8941 section 3.2: key = ( lcalpha / "*" ) *( lcalpha / DIGIT / "_" / "-" / "." / "*" ); an Integer
    // member has at most 15 digits; parameters (";...") follow a member and are ignored here.
    private static final Pattern MEMBER = Pattern.compile(
            "([a-z*][a-z0-9_.*-]*)(?:=(-?[0-9]{1,15}|[^;,]*))?((?:;[^,]*)?)");

    private ExpiryPolicyHeader() { }

    /** What a {@value #NAME} header said. */
    public record Policy(Duration ttl, Duration lease) {
        public Policy {
            Objects.requireNonNull(ttl, "ttl");
            Objects.requireNonNull(lease, "lease");
        }
    }

    /** The header's value for a coordinator running with {@code config}: {@code ttl=86400, lease=30}. */
    public static String valueOf(IdempotencyConfig config) {
        return valueOf(config.ttl(), config.lease());
    }

    /**
     * The header's value for records kept {@code ttl} and leases of {@code lease}.
     *
     * @throws IllegalArgumentException when either is negative
     */
    public static String valueOf(Duration ttl, Duration lease) {
        if (ttl.isNegative() || lease.isNegative()) {
            throw new IllegalArgumentException("the ttl and the lease must not be negative: " + ttl + ", " + lease);
        }
        long leaseSeconds = lease.getSeconds() + (lease.getNano() > 0 ? 1 : 0);
        return "ttl=" + ttl.getSeconds() + ", lease=" + leaseSeconds;
    }

    /**
     * Reads a {@value #NAME} value: the members {@code ttl} and {@code lease}, each a non-negative
     * Integer of seconds; other members and parameters are ignored, as RFC 8941 asks.
     *
     * @throws IllegalArgumentException naming the rule the value breaks
     */
    public static Policy parse(String value) {
        Map<String, String> members = new LinkedHashMap<>();
        for (String member : Objects.requireNonNull(value, "value").split(",", -1)) {
            Matcher matcher = MEMBER.matcher(member.strip());
            if (!matcher.matches()) {
                throw new IllegalArgumentException("not an RFC 8941 Dictionary member: '" + member.strip() + "'");
            }
            members.put(matcher.group(1), matcher.group(2) == null ? "?1" : matcher.group(2)); // a bare key is true
        }
        return new Policy(seconds(members, "ttl"), seconds(members, "lease"));
    }

    private static Duration seconds(Map<String, String> members, String key) {
        String value = members.get(key);
        if (value == null) {
            throw new IllegalArgumentException("the " + NAME + " header has no '" + key + "' member");
        }
        if (!value.matches("[0-9]{1,15}")) {
            throw new IllegalArgumentException("'" + key + "' must be a non-negative Integer of seconds, not '"
                    + value + "'");
        }
        return Duration.ofSeconds(Long.parseLong(value));
    }
}
