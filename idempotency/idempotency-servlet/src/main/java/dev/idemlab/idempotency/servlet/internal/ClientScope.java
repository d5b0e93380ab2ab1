package dev.idemlab.idempotency.servlet.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Where a client's keys live: the route's operation with a digest of the client appended, so a record
 * is stored under operation, client and key together. The core's call has no notion of a client, and
 * its keys are at most 255 characters (the draft's longest), so the client goes into the operation
 * rather than the key: the key stays the client's own, and the operation stays within the core's rule.
 * Stateless and thread-safe.
 */
public final class ClientScope {

    /** The scope of requests that name no client, where a route allows them. */
    public static final String ANONYMOUS = "anonymous";

    private ClientScope() { }

    /** {@code operation.c-<first 32 hex of SHA-256(client)>}: 35 characters added at most. */
    public static String operation(String operation, String client) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(client.getBytes(StandardCharsets.UTF_8));
            return operation + ".c-" + HexFormat.of().formatHex(digest, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }
}
