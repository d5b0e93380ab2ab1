package dev.idemlab.idempotency.internal;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Canonical JSON exactly as RFC 8785 (JCS) writes it, over plain Java values: maps with string
 * keys, collections, strings, numbers, booleans and {@code null}. Object members are sorted by
 * their UTF-16 code units, there is no whitespace, strings use the minimal escapes of ECMAScript's
 * {@code JSON.stringify}, and every number is an IEEE 754 double written in ECMAScript's shortest
 * round-trip form: {@code 5}, {@code 5.0} and {@code 5e0} are one number, and {@code 1.2345678901234567890e23}
 * is written {@code 1.2345678901234568e+23}, as any conformant canonicalizer writes it.
 *
 * <p>The price of going through a double is that numbers beyond 2<sup>53</sup> lose their last
 * digits. An integer amount that large would then share a fingerprint with its neighbours, so
 * integers ({@code int}, {@code long}, {@link BigInteger}, and integer literals of JSON text) beyond
 * 2<sup>53</sup> are refused instead, as RFC 8785 section 6 advises (send them as strings). Decimals
 * ({@link BigDecimal}, {@code double}) are read as doubles, exactly as the RFC reads JSON text.
 *
 * <p>Stateless and thread-safe.
 */
public final class CanonicalJson {

    /** 2^53: every integer up to this magnitude is exact as a double. */
    private static final BigInteger MAX_EXACT_INTEGER = BigInteger.ONE.shiftLeft(53);
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private CanonicalJson() { }

    /**
     * The canonical form of {@code value}.
     *
     * @throws IllegalArgumentException if the value has no JSON form (NaN, infinity, an unpaired
     *     surrogate, a map key that is not a string, an integer beyond 2^53, a type that is not plain)
     */
    public static String write(Object value) {
        StringBuilder out = new StringBuilder(64);
        write(value, out);
        return out.toString();
    }

    /** SHA-256 of the canonical form's UTF-8 bytes, as lower-case hex. */
    public static String sha256Hex(Object value) {
        byte[] digest = sha256().digest(write(value).getBytes(StandardCharsets.UTF_8));
        char[] hex = new char[digest.length * 2];
        for (int i = 0; i < digest.length; i++) {
            hex[2 * i] = HEX[(digest[i] >> 4) & 0xf];
            hex[2 * i + 1] = HEX[digest[i] & 0xf];
        }
        return new String(hex);
    }

    /** Whether {@code value} is one of the plain types {@link #write} takes, at its top level. */
    public static boolean isPlain(Object value) {
        return value == null || value instanceof Map || value instanceof Collection || value instanceof CharSequence
                || value instanceof Number || value instanceof Boolean || value instanceof Enum;
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    private static void write(Object value, StringBuilder out) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof Map<?, ?> map) {
            writeObject(map, out);
        } else if (value instanceof Collection<?> items) {
            out.append('[');
            boolean first = true;
            for (Object item : items) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                write(item, out);
            }
            out.append(']');
        } else if (value instanceof CharSequence text) {
            writeString(text.toString(), out);
        } else if (value instanceof Enum<?> constant) {
            writeString(constant.name(), out);
        } else if (value instanceof Boolean bool) {
            out.append(bool.booleanValue());
        } else if (value instanceof Number number) {
            out.append(number(number));
        } else {
            throw new IllegalArgumentException("cannot write a " + value.getClass().getName()
                    + " as canonical JSON: pass maps, lists, strings, numbers and booleans");
        }
    }

    private static void writeObject(Map<?, ?> map, StringBuilder out) {
        List<String> names = new ArrayList<>(map.size());
        for (Object name : map.keySet()) {
            if (!(name instanceof String text)) {
                throw new IllegalArgumentException("JSON member names are strings, got " + name);
            }
            names.add(text);
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
            write(map.get(names.get(i)), out);
        }
        out.append('}');
    }

    private static void writeString(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isSurrogate(c)) {
                boolean paired = Character.isHighSurrogate(c) && i + 1 < s.length()
                        && Character.isLowSurrogate(s.charAt(i + 1));
                if (!paired) {
                    throw new IllegalArgumentException("JSON strings must be valid Unicode: unpaired surrogate U+"
                            + Integer.toHexString(c).toUpperCase(java.util.Locale.ROOT) + " at index " + i);
                }
                out.append(c).append(s.charAt(++i));
                continue;
            }
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

    /** ECMAScript {@code Number::toString} of the number as a double, as RFC 8785 section 3.2.2.3 asks. */
    static String number(Number number) {
        if (number instanceof Integer || number instanceof Long || number instanceof Short || number instanceof Byte) {
            return integer(BigInteger.valueOf(number.longValue()));
        }
        if (number instanceof BigInteger big) {
            return integer(big);
        }
        if (number instanceof BigDecimal decimal) {
            // A decimal (a JSON number with a fraction or an exponent) is a double to RFC 8785, like 1E30.
            return of(decimal.doubleValue());
        }
        if (number instanceof Float f) {
            // The float's own shortest digits, not the binary expansion of its widening to double.
            return Float.isFinite(f) ? of(new BigDecimal(Float.toString(f)).doubleValue()) : of(f.doubleValue());
        }
        return of(number.doubleValue());
    }

    private static String integer(BigInteger value) {
        if (value.abs().compareTo(MAX_EXACT_INTEGER) > 0) {
            throw new IllegalArgumentException("integer " + value + " is beyond 2^53, where JSON numbers (IEEE 754 "
                    + "doubles, RFC 8785) lose digits and two amounts would share a fingerprint: send it as a string");
        }
        return value.toString();
    }

    /** ECMAScript {@code Number::toString(d)}: the shortest digits that read back as {@code d}. */
    public static String of(double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            throw new IllegalArgumentException("JSON has no form for " + d);
        }
        if (d == 0) {
            return "0"; // -0 too
        }
        return ecmaScriptForm(shortest(d));
    }

    /**
     * The decimal with the fewest significant digits that reads back as {@code d}; among those,
     * the closest to {@code d}. Rounding the exact binary value half-even to p digits gives the
     * closest p-digit decimal, so the first p that round-trips is the answer.
     */
    private static BigDecimal shortest(double d) {
        BigDecimal exact = new BigDecimal(d);
        for (int digits = 1; digits < 17; digits++) {
            BigDecimal candidate = exact.round(new MathContext(digits, RoundingMode.HALF_EVEN));
            if (candidate.doubleValue() == d) {
                return candidate.stripTrailingZeros();
            }
        }
        return exact.round(new MathContext(17, RoundingMode.HALF_EVEN)).stripTrailingZeros();
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
