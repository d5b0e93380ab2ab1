package dev.idemlab.lab.load;

/**
 * How the load harness names its logical requests. Logical request {@code i} always carries key
 * {@code load-i}, order {@code order-i} and the same amount, so every send of one key has one
 * fingerprint: a duplicate is an honest retry, never a key reuse.
 *
 * <p>Stateless and thread-safe.
 */
public final class LoadKeys {

    /** The operation every charge of the load runs under. */
    public static final String OPERATION = "payment.charge";

    private static final String KEY_PREFIX = "load-";
    private static final String CHARGE_PREFIX = "ch_";
    private static final String ORDER_PREFIX = "order-";

    private LoadKeys() { }

    /** The idempotency key of logical request {@code index}. */
    public static String key(int index) {
        return KEY_PREFIX + index;
    }

    /** The order logical request {@code index} pays for. */
    public static String orderId(int index) {
        return ORDER_PREFIX + index;
    }

    /** The index behind an order of the load ({@code order-i}), or -1 for any other order id. */
    public static int indexOfOrder(String orderId) {
        return orderId != null && orderId.startsWith(ORDER_PREFIX) ? parse(orderId, ORDER_PREFIX.length()) : -1;
    }

    /** The amount logical request {@code index} charges, in minor units: 100 to 9999. */
    public static long amount(int index) {
        return 100 + index % 9900;
    }

    /** The index behind a key of the load, or -1 for any other key (including {@code null}). */
    public static int index(String key) {
        return key != null && key.startsWith(KEY_PREFIX) ? parse(key, KEY_PREFIX.length()) : -1;
    }

    /** The number N of the provider's charge id {@code ch_N}, or -1 for an id of another shape. */
    public static int chargeNumber(String chargeId) {
        return chargeId != null && chargeId.startsWith(CHARGE_PREFIX) ? parse(chargeId, CHARGE_PREFIX.length()) : -1;
    }

    private static int parse(String text, int from) {
        if (from >= text.length() || text.length() - from > 10) {
            return -1;
        }
        long value = 0;
        for (int i = from; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value > Integer.MAX_VALUE ? -1 : (int) value;
    }
}
