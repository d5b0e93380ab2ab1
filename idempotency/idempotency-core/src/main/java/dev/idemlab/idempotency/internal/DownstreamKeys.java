package dev.idemlab.idempotency.internal;

import dev.idemlab.idempotency.spi.StoreKeys;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The key an action passes to its provider: {@code idem_} and the first 40 hex characters of the
 * SHA-256 of the record's name in the store, {@code prefix{operation:key}} ({@link StoreKeys#of}). It
 * is derived from what scopes the record, nothing else, so every retry of a request, in any process,
 * passes the same one; and since distinct (prefix, operation, key) never share a record name, two
 * tenants (store key prefixes) or two clients (scoped operations, as the HTTP filter builds them)
 * that send the same key never pass the same one. Short and plain enough for any provider's own key
 * rules. Thread-safe: each thread keeps its own digest, since looking one up by name costs more than
 * the hash itself.
 */
final class DownstreamKeys {

    private static final byte[] PREFIX = "idem_".getBytes(StandardCharsets.US_ASCII);
    private static final int HEX_DIGITS = 40;
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final ThreadLocal<MessageDigest> SHA_256 = ThreadLocal.withInitial(DownstreamKeys::sha256);

    private final String storeKeyPrefix;

    /**
     * Downstream keys for the records of a store whose key prefix is {@code storeKeyPrefix}.
     *
     * @throws IllegalArgumentException if the prefix holds a brace
     */
    DownstreamKeys(String storeKeyPrefix) {
        StoreKeys.of(storeKeyPrefix, "");
        this.storeKeyPrefix = storeKeyPrefix;
    }

    /** The downstream key of {@code namespace} ({@code operation:key}). */
    String of(String namespace) {
        MessageDigest digest = SHA_256.get();
        byte[] hash = digest.digest(StoreKeys.of(storeKeyPrefix, namespace).getBytes(StandardCharsets.UTF_8));
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
