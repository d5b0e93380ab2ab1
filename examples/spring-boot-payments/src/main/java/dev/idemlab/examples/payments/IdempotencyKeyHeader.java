package dev.idemlab.examples.payments;

import dev.idemlab.idempotency.IdempotentCall;

import java.util.List;

/**
 * Reads the {@code Idempotency-Key} field as draft-ietf-httpapi-idempotency-key-header-07 section 2.1
 * defines it: one RFC 8941 String item ({@code Idempotency-Key: "8e03978e"}), whose parameters are
 * ignored. A bare token, a List, two field lines or an empty String is no key: refused. Stateless.
 */
final class IdempotencyKeyHeader {

    static final String NAME = "Idempotency-Key";
    private static final String EXAMPLE = "e.g. Idempotency-Key: \"8e03978e-40d5-43e8-bc93-6894a57f9324\"";

    private IdempotencyKeyHeader() { }

    /**
     * The key the field lines carry.
     *
     * @param fieldLines the request's {@code Idempotency-Key} field lines, as received
     * @return the key, or {@code null} when the request has none
     * @throws InvalidChargeRequestException naming the rule the field breaks
     */
    static String parse(List<String> fieldLines) {
        if (fieldLines.isEmpty()) {
            return null;
        }
        if (fieldLines.size() > 1) {
            throw malformed("it came in " + fieldLines.size() + " field lines; it is one String item, " + EXAMPLE);
        }
        String field = fieldLines.get(0).strip();
        if (!field.startsWith("\"")) {
            throw malformed("it is a String item, in double quotes, " + EXAMPLE);
        }
        StringBuilder key = new StringBuilder();
        int i = 1;
        for (; i < field.length() && field.charAt(i) != '"'; i++) {
            char c = field.charAt(i);
            if (c == '\\') {
                i++;
                if (i == field.length() || field.charAt(i) != '"' && field.charAt(i) != '\\') {
                    throw malformed("in a String item a backslash escapes only '\"' or '\\' (RFC 8941 section 3.3.3)");
                }
                c = field.charAt(i);
            } else if (c < 0x20 || c > 0x7e) {
                throw malformed("a String item holds printable ASCII only (RFC 8941 section 3.3.3)");
            }
            key.append(c);
        }
        if (i == field.length()) {
            throw malformed("the String item has no closing double quote");
        }
        String rest = field.substring(i + 1);
        if (!rest.isEmpty() && !rest.startsWith(";")) {
            throw malformed("it is one String item, not a List or anything after it, " + EXAMPLE);
        }
        String brokenRule = IdempotentCall.brokenKeyRule(key.toString());
        if (brokenRule != null) {
            throw new InvalidChargeRequestException("Idempotency-Key is invalid", brokenRule);
        }
        return key.toString();
    }

    private static InvalidChargeRequestException malformed(String rule) {
        return new InvalidChargeRequestException("Idempotency-Key is malformed", NAME + ": " + rule);
    }
}
