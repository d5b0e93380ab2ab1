package dev.idemlab.idempotency.internal;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Owner tokens: a random 64-bit prefix drawn once per coordinator, then a counter, about 20 characters. Unique across
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
        this.prefix = Base64.getUrlEncoder().withoutPadding().encodeToString(seed) + '.'; // 64 bits in 11 chars
    }

    /**
     * The prefix and the counter in decimal. A string concatenation sizes its one array exactly and
     * fills it in place: one array and one string per call, no copy.
     */
    String next() {
        return prefix + counter.incrementAndGet();
    }
}
