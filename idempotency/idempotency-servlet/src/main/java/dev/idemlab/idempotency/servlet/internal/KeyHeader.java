package dev.idemlab.idempotency.servlet.internal;

import java.util.List;

/**
 * Reads the {@code Idempotency-Key} field as draft-ietf-httpapi-idempotency-key-header-07 section 2.1
 * (Syntax) defines it: an RFC 8941 Item whose bare item is a String, with any parameters, which are
 * ignored (RFC 8941 section 3.1.2: unknown parameters are ignored). Everything else is refused with
 * the rule it broke: a second field line, a List, a Token or other bare item, a malformed String,
 * trailing characters. Stateless and thread-safe.
 */
public final class KeyHeader {

    /** The field's name. */
    public static final String NAME = "Idempotency-Key";

    private final String value;
    private int at;

    private KeyHeader(String value) {
        this.value = value;
    }

    /**
     * The key the field lines carry, or {@code null} when there are none.
     *
     * @param fieldLines every field line of the header, in order
     * @throws MalformedKeyException naming the rule the field broke
     */
    public static String parse(List<String> fieldLines) {
        return parse(fieldLines, false);
    }

    /**
     * As {@link #parse(List)}; with {@code bareAllowed}, a field that does not open a String is taken
     * whole as the key, as Stripe's SDKs send it ({@code Idempotency-Key: 3f2b...}): visible ASCII
     * without spaces, commas, semicolons or quotes, so that a List, two joined field lines or a token with
     * parameters are still refused (a key must not read two ways).
     *
     * @throws MalformedKeyException naming the rule the field broke
     */
    public static String parse(List<String> fieldLines, boolean bareAllowed) {
        if (fieldLines.isEmpty()) {
            return null;
        }
        if (fieldLines.size() > 1) {
            throw new MalformedKeyException(NAME + " must be sent once, as one String item; got "
                    + fieldLines.size() + " field lines");
        }
        String line = fieldLines.get(0);
        String trimmed = line.strip();
        if (bareAllowed && !trimmed.isEmpty() && trimmed.charAt(0) != '"') {
            return bare(trimmed);
        }
        return new KeyHeader(line).item();
    }

    private static String bare(String key) {
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c <= 0x20 || c >= 0x7f || c == ',' || c == '"' || c == ';') {
                throw new MalformedKeyException(NAME + " sent bare must be visible ASCII without spaces, commas, "
                        + "semicolons or quotes; got '" + (c < 0x20 || c >= 0x7f ? String.format("\\u%04x", (int) c) : String.valueOf(c))
                        + "' at index " + i);
            }
        }
        return key;
    }

    /** RFC 8941 section 4.2: discard leading SP, parse an Item, discard trailing SP, nothing may remain. */
    private String item() {
        skipSpaces();
        if (at >= value.length()) {
            throw new MalformedKeyException(NAME + " must be a String item (\"...\"); the field is empty");
        }
        if (value.charAt(at) != '"') {
            throw new MalformedKeyException(NAME + " must be a String item in double quotes (RFC 8941 section 3.3.3);"
                    + " got a bare value");
        }
        String key = string();
        parameters();
        skipSpaces();
        if (at < value.length()) {
            throw new MalformedKeyException(value.charAt(at) == ','
                    ? NAME + " must be one String item, not a List"
                    : NAME + " has characters after its String item at index " + at);
        }
        return key;
    }

    /** RFC 8941 section 4.2.5: printable ASCII, with only {@code \"} and {@code \\} escaped. */
    private String string() {
        StringBuilder out = new StringBuilder();
        at++; // the opening quote
        while (at < value.length()) {
            char c = value.charAt(at++);
            if (c == '\\') {
                if (at >= value.length()) {
                    break;
                }
                char escaped = value.charAt(at++);
                if (escaped != '"' && escaped != '\\') {
                    throw new MalformedKeyException(NAME + " may escape only \\\" and \\\\ (RFC 8941 section 3.3.3)");
                }
                out.append(escaped);
            } else if (c == '"') {
                return out.toString();
            } else if (c < 0x20 || c > 0x7e) {
                throw new MalformedKeyException(NAME + " must hold printable ASCII only (RFC 8941 section 3.3.3)");
            } else {
                out.append(c);
            }
        }
        throw new MalformedKeyException(NAME + " has a String that is never closed");
    }

    /** RFC 8941 section 4.2.3.2: {@code *( ";" *SP key [ "=" bare-item ] )}; the values are checked, not kept. */
    private void parameters() {
        while (at < value.length() && value.charAt(at) == ';') {
            at++;
            skipSpaces();
            parameterKey();
            if (at < value.length() && value.charAt(at) == '=') {
                at++;
                bareItem();
            }
        }
    }

    private void parameterKey() {
        if (at >= value.length() || !(isLcAlpha(value.charAt(at)) || value.charAt(at) == '*')) {
            throw new MalformedKeyException(NAME + " has a parameter whose key does not start with a-z or *");
        }
        while (at < value.length() && isKeyChar(value.charAt(at))) {
            at++;
        }
    }

    private void bareItem() {
        if (at >= value.length()) {
            throw new MalformedKeyException(NAME + " has a parameter with no value after '='");
        }
        char c = value.charAt(at);
        if (c == '"') {
            string();
        } else if (c == '?') {
            at++;
            if (at >= value.length() || (value.charAt(at) != '0' && value.charAt(at) != '1')) {
                throw new MalformedKeyException(NAME + " has a parameter Boolean that is not ?0 or ?1");
            }
            at++;
        } else if (c == ':') {
            int end = value.indexOf(':', at + 1);
            if (end < 0 || !value.substring(at + 1, end).matches("[A-Za-z0-9+/=]*")) {
                throw new MalformedKeyException(NAME + " has a malformed parameter Byte Sequence");
            }
            at = end + 1;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            int start = at++;
            while (at < value.length() && (Character.isDigit(value.charAt(at)) || value.charAt(at) == '.')) {
                at++;
            }
            if (!value.substring(start, at).matches("-?\\d{1,15}(\\.\\d{1,3})?")) {
                throw new MalformedKeyException(NAME + " has a malformed parameter Integer or Decimal");
            }
        } else if (Character.isLetter(c) || c == '*') {
            while (at < value.length() && isTokenChar(value.charAt(at))) {
                at++;
            }
        } else {
            throw new MalformedKeyException(NAME + " has a parameter value that is no RFC 8941 bare item");
        }
    }

    private void skipSpaces() {
        while (at < value.length() && value.charAt(at) == ' ') {
            at++;
        }
    }

    private static boolean isLcAlpha(char c) {
        return c >= 'a' && c <= 'z';
    }

    private static boolean isKeyChar(char c) {
        return isLcAlpha(c) || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.' || c == '*';
    }

    private static boolean isTokenChar(char c) {
        return c > 0x20 && c < 0x7f && "\"(),;<=>?@[\\]{}".indexOf(c) < 0;
    }
}
