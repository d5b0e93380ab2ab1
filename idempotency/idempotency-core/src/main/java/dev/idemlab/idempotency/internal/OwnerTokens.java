package dev.idemlab.idempotency.internal;

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

    private final String prefix;
    private final AtomicLong counter = new AtomicLong();

    OwnerTokens() {
        byte[] seed = new byte[8];
        new SecureRandom().nextBytes(seed);
        this.prefix = HexFormat.of().formatHex(seed) + '-';
    }

    String next() {
        return prefix + Long.toHexString(counter.incrementAndGet());
    }
}
