package dev.idemlab.idempotency.store.postgres;

import dev.idemlab.idempotency.spi.CompletionNotifications.Ending;
import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.StoredResult;

/**
 * Reads what a notification of the table's channel says: the namespace whose reservation ended, and
 * how. The payload, written by the {@code _ending} function of {@code schema.sql}, is
 * {@code kind:N:T:F:} followed by the namespace, token and fingerprint (of N, T and F code points)
 * and, for a completion, {@code j} and the result's JSON or {@code r} and the reason it was not stored.
 * Lengths rather than delimiters, since a key may hold any character but a control one and a result
 * any at all. Kind {@code c} is a completion, {@code r} a release, {@code u} a completion whose record
 * did not fit in a payload.
 *
 * <p>A payload this reader does not understand (a client of another version writing to the channel)
 * names no namespace it knows and wakes nobody; such waiters fall back to their safety poll.
 * Immutable and thread-safe.
 */
record EndingPayload(String namespace, Ending ending) {

    /** The payload's namespace and ending, or {@code null} if it is not a payload of this version. */
    static EndingPayload parse(String payload) {
        try {
            String[] head = payload.split(":", 5);
            if (head.length < 5) {
                return null;
            }
            String fields = head[4];
            int namespaceEnd = fields.offsetByCodePoints(0, Integer.parseInt(head[1]));
            int tokenEnd = fields.offsetByCodePoints(namespaceEnd, Integer.parseInt(head[2]));
            int fingerprintEnd = fields.offsetByCodePoints(tokenEnd, Integer.parseInt(head[3]));
            String namespace = fields.substring(0, namespaceEnd);
            String token = fields.substring(namespaceEnd, tokenEnd);
            return switch (head[0]) {
                case "c" -> new EndingPayload(namespace, new Ending.Completed(token, new IdempotencyRecord.Completed(
                        fields.substring(tokenEnd, fingerprintEnd), result(fields.substring(fingerprintEnd)))));
                case "r" -> new EndingPayload(namespace, new Ending.Released(token));
                case "u" -> new EndingPayload(namespace, Ending.UNKNOWN);
                default -> null;
            };
        } catch (RuntimeException notOurs) {
            return null;
        }
    }

    private static StoredResult result(String rest) {
        String value = rest.substring(1);
        return rest.charAt(0) == 'j' ? new StoredResult(value, null) : new StoredResult(null, value);
    }
}
