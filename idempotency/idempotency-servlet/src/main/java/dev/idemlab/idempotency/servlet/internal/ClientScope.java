package dev.idemlab.idempotency.servlet.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Where a client's keys live: the route's operation with the client's scope appended, so a record
 * is stored under operation, client and key together. The core's call has no notion of a client, and
 * its keys are at most 255 characters (the draft's longest), so the scope goes into the operation
 * rather than the key: the key stays the client's own, and the operation stays within the core's rule
 * ({@code [A-Za-z0-9._-]{1,100}}).
 *
 * <p>Anonymous and authenticated clients are told apart by the scope's shape, never by a name: an
 * authenticated client's scope is {@code .c-} and 32 lower-case hex characters, the anonymous one's
 * {@code .anon}, which holds characters no hex digest does. So no principal, whatever its name
 * ({@code anonymous} included), shares the anonymous clients' records, and since both suffixes have a
 * fixed shape, two routes' operations never produce one scoped operation either. Stateless and
 * thread-safe.
 */
public final class ClientScope {

    /** The scope suffix of requests that name no client, where a route allows them. */
    private static final String ANONYMOUS_SUFFIX = ".anon";
    private static final HexFormat HEX = HexFormat.of();
    /** Never used itself, only cloned: a digest is not thread-safe, a clone belongs to its caller. */
    private static final MessageDigest SHA_256 = lookUpSha256();

    private ClientScope() { }

    /** {@code operation.c-<first 32 hex of SHA-256(client)>}: the scope of an identified client. */
    public static String operation(String operation, String client) {
        byte[] digest = sha256().digest(client.getBytes(StandardCharsets.UTF_8));
        return operation + ".c-" + HEX.formatHex(digest, 0, 16);
    }

    /**
     * A fresh SHA-256 digest, cloned from one looked up once: {@code MessageDigest.getInstance} searches
     * the security providers on every call, and on every request that search was most of what scoping
     * the request to its client cost in the filter-cost flight recording.
     */
    static MessageDigest sha256() {
        try {
            return (MessageDigest) SHA_256.clone();
        } catch (CloneNotSupportedException notCloneable) {
            return lookUpSha256();
        }
    }

    private static MessageDigest lookUpSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }

    /** {@code operation.anon}: the one scope every request that names no client shares. */
    public static String anonymousOperation(String operation) {
        return operation + ANONYMOUS_SUFFIX;
    }
}
