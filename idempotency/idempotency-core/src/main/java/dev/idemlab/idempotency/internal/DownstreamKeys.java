package dev.idemlab.idempotency.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The key an action passes to its provider: derived from the namespace alone, so every retry of a
 * request, in any process, passes the same one, and short and plain enough for any provider's own
 * key rules ({@code idem_} and 40 hex characters). Stateless and thread-safe.
 */
final class DownstreamKeys {

    private DownstreamKeys() { }

    static String of(String namespace) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(namespace.getBytes(StandardCharsets.UTF_8));
            return "idem_" + HexFormat.of().formatHex(digest, 0, 20);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
