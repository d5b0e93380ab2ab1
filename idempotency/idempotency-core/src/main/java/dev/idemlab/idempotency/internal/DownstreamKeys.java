package dev.idemlab.idempotency.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The key an action passes to its provider: derived from the namespace alone, so every retry of a
 * request, in any process, passes the same one, and short and plain enough for any provider's own
 * key rules ({@code idem_} and 40 hex characters). Thread-safe: each thread keeps its own digest,
 * since looking one up by name costs more than the hash itself.
 */
final class DownstreamKeys {

    private static final byte[] PREFIX = "idem_".getBytes(StandardCharsets.US_ASCII);
    private static final int HEX_DIGITS = 40;
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final ThreadLocal<MessageDigest> SHA_256 = ThreadLocal.withInitial(DownstreamKeys::sha256);

    private DownstreamKeys() { }

    static String of(String namespace) {
        MessageDigest digest = SHA_256.get();
        byte[] hash = digest.digest(namespace.getBytes(StandardCharsets.UTF_8));
        byte[] key = new byte[PREFIX.length + HEX_DIGITS];
        System.arraycopy(PREFIX, 0, key, 0, PREFIX.length);
        for (int i = 0; i < HEX_DIGITS / 2; i++) {
            key[PREFIX.length + 2 * i] = HEX[(hash[i] >> 4) & 0xf];
            key[PREFIX.length + 2 * i + 1] = HEX[hash[i] & 0xf];
        }
        return new String(key, StandardCharsets.US_ASCII);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
