package dev.idemlab.idempotency;

import java.util.Objects;

/**
 * One request as the coordinator sees it: the operation, the client's key and the request's
 * fingerprint. The record lives under {@code operation:key}, so one key may be used once per operation.
 *
 * <p>Immutable and thread-safe. Arguments are checked here, once.
 *
 * @param operation {@code [A-Za-z0-9._-]{1,100}}, e.g. {@code payment.charge}
 * @param key the client's key: 1 to 255 Unicode code points, valid Unicode, not blank, no control
 *     characters (see {@link #brokenKeyRule}); {@code null} means
 *     no idempotency was asked for and the action runs directly
 * @param fingerprint what makes this request this request
 */
public record IdempotentCall(String operation, String key, Fingerprint fingerprint) {

    /** The longest key accepted. */
    public static final int MAX_KEY_LENGTH = 255;

    /**
     * @throws IllegalArgumentException if the operation breaks its rule
     * @throws InvalidIdempotencyKeyException if the key breaks its rule
     */
    public IdempotentCall {
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(fingerprint, "fingerprint");
        if (!isOperationName(operation)) {
            throw new IllegalArgumentException("operation must match [A-Za-z0-9._-]{1,100}: '" + operation + "'");
        }
        if (key != null) {
            String broken = brokenKeyRule(key);
            if (broken != null) {
                throw new InvalidIdempotencyKeyException(operation, key, broken);
            }
        }
    }

    /** {@code [A-Za-z0-9._-]{1,100}}, checked by hand: it runs on every call. */
    private static boolean isOperationName(String operation) {
        int length = operation.length();
        if (length == 0 || length > 100) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            char c = operation.charAt(i);
            boolean allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == '-';
            if (!allowed) {
                return false;
            }
        }
        return true;
    }

    /** A call; see the record's rules. */
    public static IdempotentCall of(String operation, String key, Fingerprint fingerprint) {
        return new IdempotentCall(operation, key, fingerprint);
    }

    /**
     * The rule {@code key} breaks, or {@code null} if it is a valid key: 1 to {@value #MAX_KEY_LENGTH}
     * Unicode code points (not UTF-16 units: 200 emoji are 200 characters), valid Unicode (no unpaired
     * surrogate, which a store would turn into a replacement character shared with other keys), not
     * blank, no control characters. Exposed so that an API or CLI layer can validate a key before
     * building a call.
     */
    public static String brokenKeyRule(String key) {
        if (key.isEmpty()) {
            return "key must be 1 to " + MAX_KEY_LENGTH + " Unicode code points, got an empty key";
        }
        int codePoints = 0;
        boolean blank = true;
        for (int i = 0; i < key.length(); ) {
            char c = key.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < key.length() && Character.isLowSurrogate(key.charAt(i + 1))) {
                i += 2;
            } else if (Character.isSurrogate(c)) {
                return "key must be valid Unicode: unpaired surrogate U+" + String.format("%04X", (int) c)
                        + " at index " + i;
            } else {
                if (Character.isISOControl(c)) {
                    return "key must not contain control characters (found U+" + String.format("%04X", (int) c)
                            + " at index " + i + ")";
                }
                blank &= Character.isWhitespace(c) || Character.isSpaceChar(c);
                i++;
                codePoints++;
                continue;
            }
            blank = false;
            codePoints++;
        }
        if (codePoints > MAX_KEY_LENGTH) {
            return "key must be 1 to " + MAX_KEY_LENGTH + " Unicode code points, got " + codePoints;
        }
        if (blank) {
            return "key must not be blank";
        }
        return null;
    }

    /** Whether the caller asked for idempotency at all. */
    public boolean hasKey() {
        return key != null;
    }

    /** The store namespace of this call: {@code operation:key}. */
    public String namespace() {
        return operation + ':' + key;
    }
}
