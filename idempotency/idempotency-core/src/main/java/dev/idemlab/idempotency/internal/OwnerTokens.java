package dev.idemlab.idempotency.internal;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Owner tokens: a random 64-bit prefix drawn once per coordinator, then a counter. Unique across
 * processes without asking the secure random source on every call, which is the slow part of a
 * random UUID. A token is an ownership nonce, not a secret.
 *
 * <p>Thread-safe.
 */
final class OwnerTokens {

    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.ISO_8859_1);

    private final byte[] prefix;
    private final AtomicLong counter = new AtomicLong();

    OwnerTokens() {
        byte[] seed = new byte[8];
        new SecureRandom().nextBytes(seed);
        this.prefix = (HexFormat.of().formatHex(seed) + '-').getBytes(StandardCharsets.ISO_8859_1);
    }

    /** The prefix and the counter in hex, built in one array: one string per call, not two. */
    String next() {
        long n = counter.incrementAndGet();
        int digits = Math.max(1, (Long.SIZE - Long.numberOfLeadingZeros(n) + 3) / 4);
        byte[] token = new byte[prefix.length + digits];
        System.arraycopy(prefix, 0, token, 0, prefix.length);
        for (int i = token.length - 1; i >= prefix.length; i--, n >>>= 4) {
            token[i] = HEX[(int) (n & 0xf)];
        }
        return new String(token, StandardCharsets.ISO_8859_1);
    }
}
