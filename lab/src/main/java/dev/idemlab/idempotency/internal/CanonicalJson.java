package dev.idemlab.idempotency.internal;

import com.fasterxml.jackson.databind.JsonNode;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Canonical JSON after RFC 8785 (JCS): object members sorted by their UTF-16 code units, no
 * whitespace, minimal string escapes, and numbers in ECMAScript form, so that {@code 5},
 * {@code 5.0} and {@code 5e0} are one number. Numbers keep their decimal digits exactly rather
 * than passing through a double, which only matters beyond 17 significant digits.
 *
 * <p>Stateless and thread-safe.
 */
public final class CanonicalJson {

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private CanonicalJson() { }

    /** The canonical form of {@code node}. */
    public static String write(JsonNode node) {
        StringBuilder out = new StringBuilder(64);
        write(node, out);
        return out.toString();
    }

    /** SHA-256 of the canonical form's UTF-8 bytes, as lower-case hex. */
    public static String sha256Hex(JsonNode node) {
        byte[] digest = sha256().digest(write(node).getBytes(StandardCharsets.UTF_8));
        char[] hex = new char[digest.length * 2];
        for (int i = 0; i < digest.length; i++) {
            hex[2 * i] = HEX[(digest[i] >> 4) & 0xf];
            hex[2 * i + 1] = HEX[digest[i] & 0xf];
        }
        return new String(hex);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    private static void write(JsonNode node, StringBuilder out) {
        switch (node.getNodeType()) {
            case OBJECT -> writeObject(node, out);
            case ARRAY -> {
                out.append('[');
                for (int i = 0; i < node.size(); i++) {
                    if (i > 0) {
                        out.append(',');
                    }
                    write(node.get(i), out);
                }
                out.append(']');
            }
            case STRING -> writeString(node.textValue(), out);
            case NUMBER -> out.append(number(node));
            case BOOLEAN -> out.append(node.booleanValue());
            case NULL, MISSING -> out.append("null");
            default -> throw new IllegalArgumentException("cannot fingerprint a JSON " + node.getNodeType());
        }
    }

    private static void writeObject(JsonNode node, StringBuilder out) {
        List<String> names = new ArrayList<>(node.size());
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            names.add(it.next());
        }
        // String.compareTo orders by UTF-16 code units, which is exactly what RFC 8785 asks for.
        names.sort(null);
        out.append('{');
        for (int i = 0; i < names.size(); i++) {
            if (i > 0) {
                out.append(',');
            }
            writeString(names.get(i), out);
            out.append(':');
            write(node.get(names.get(i)), out);
        }
        out.append('}');
    }

    private static void writeString(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xf]);
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    /** ECMAScript Number::toString of the node's exact decimal value. */
    static String number(JsonNode node) {
        if (node.isDouble() || node.isFloat()) {
            double d = node.doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                throw new IllegalArgumentException("JSON has no form for " + d);
            }
        }
        BigDecimal value = node.decimalValue();
        if (value.signum() == 0) {
            return "0";
        }
        return ecmaScriptForm(value.stripTrailingZeros());
    }

    private static String ecmaScriptForm(BigDecimal value) {
        String sign = value.signum() < 0 ? "-" : "";
        String digits = value.unscaledValue().abs().toString();
        int k = digits.length();
        int n = k - value.scale(); // value = 0.digits x 10^n
        StringBuilder out = new StringBuilder(sign);
        if (k <= n && n <= 21) {
            out.append(digits).append("0".repeat(n - k));
        } else if (0 < n && n <= 21) {
            out.append(digits, 0, n).append('.').append(digits, n, k);
        } else if (-6 < n && n <= 0) {
            out.append("0.").append("0".repeat(-n)).append(digits);
        } else {
            int exponent = n - 1;
            out.append(digits.charAt(0));
            if (k > 1) {
                out.append('.').append(digits, 1, k);
            }
            out.append('e').append(exponent < 0 ? '-' : '+').append(Math.abs(exponent));
        }
        return out.toString();
    }
}
