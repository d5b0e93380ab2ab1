package dev.idemlab.idempotency.spi;

/**
 * How a network store names a namespace's record: {@code prefix{operation:key}}. The prefix holds no
 * brace and the operation no colon, so the first brace ends the prefix and the first colon after it
 * ends the operation: distinct (prefix, operation, key) never share a name, whatever characters the
 * key holds. The braces are a Redis Cluster hash tag, so every name derived from a namespace shares
 * its slot. Stateless and thread-safe.
 */
public final class StoreKeys {

    private StoreKeys() { }

    /**
     * The record name of {@code namespace} ({@code operation:key}) under {@code prefix}.
     *
     * @throws IllegalArgumentException if the prefix holds a brace
     */
    public static String of(String prefix, String namespace) {
        if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
            throw new IllegalArgumentException("a store key prefix must not contain braces: " + prefix);
        }
        return prefix + '{' + namespace + '}';
    }
}
