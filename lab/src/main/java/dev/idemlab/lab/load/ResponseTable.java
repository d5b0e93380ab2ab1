package dev.idemlab.lab.load;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The charge ids callers got, per key, without an object per response: an open-addressing table
 * from key index to one packed long (the first charge number seen and how many responses held it).
 * The rare key whose callers got a second charge id keeps the extra ids in a small side map. About
 * 24 bytes per key at the table's fill, whatever the number of responses.
 *
 * <p>Not thread-safe: {@link ChargeHistory} guards each table with a lock of its own.
 */
final class ResponseTable {

    private static final int EMPTY = -1;
    private static final long COUNT_MASK = 0xFFFF_FFFFL;

    private int[] keys;
    private long[] values;
    private int size;
    private final Map<Integer, Map<Integer, Long>> otherCharges = new HashMap<>();

    ResponseTable(int initialCapacity) {
        int capacity = Integer.highestOneBit(Math.max(16, initialCapacity) * 2 - 1);
        keys = new int[capacity];
        Arrays.fill(keys, EMPTY);
        values = new long[capacity];
    }

    /** Records that one caller of {@code key} got charge number {@code chargeNumber}. */
    void add(int key, int chargeNumber) {
        add(key, chargeNumber, 1);
    }

    /**
     * Records that {@code responses} callers of {@code key} got charge number {@code chargeNumber}: one
     * caller at a time in this JVM, or a whole count from another process's history.
     */
    void add(int key, int chargeNumber, long responses) {
        if (key < 0) {
            throw new IllegalArgumentException("key index must not be negative: " + key);
        }
        int slot = slotOf(key, keys);
        if (keys[slot] == EMPTY) {
            keys[slot] = key;
            values[slot] = pack(chargeNumber, 0);
            if (++size * 4 > keys.length * 3) {
                grow();
                slot = slotOf(key, keys);
            }
        }
        long packed = values[slot];
        if ((int) (packed >>> 32) == chargeNumber && (packed & COUNT_MASK) + responses <= COUNT_MASK) {
            values[slot] = packed + responses;
        } else {
            otherCharges.computeIfAbsent(key, k -> new HashMap<>(2)).merge(chargeNumber, responses, Long::sum);
        }
    }

    /** How many distinct keys got at least one response. */
    int keys() {
        return size;
    }

    /** Roughly the bytes this table holds: its two arrays, and about 100 bytes per extra charge id. */
    long footprintBytes() {
        long extra = otherCharges.values().stream().mapToLong(Map::size).sum();
        return keys.length * 4L + values.length * 8L + extra * 100L;
    }

    /** Visits every distinct (key, charge) pair. */
    void forEach(ChargeHistory.ResponseVisitor visitor) {
        for (int slot = 0; slot < keys.length; slot++) {
            if (keys[slot] != EMPTY) {
                visitor.visit(keys[slot], (int) (values[slot] >>> 32), values[slot] & COUNT_MASK);
            }
        }
        otherCharges.forEach((key, charges) -> charges.forEach((charge, count) -> visitor.visit(key, charge, count)));
    }

    /** Whether callers of {@code key} got more than one charge id. */
    boolean isSplit(int key) {
        Map<Integer, Long> others = otherCharges.get(key);
        if (others == null) {
            return false;
        }
        int first = (int) (values[slotOf(key, keys)] >>> 32);
        return others.keySet().stream().anyMatch(charge -> charge != first);
    }

    /** The keys whose callers got more than one charge id. */
    int splitKeys() {
        int split = 0;
        for (Integer key : otherCharges.keySet()) {
            if (isSplit(key)) {
                split++;
            }
        }
        return split;
    }

    private static long pack(int chargeNumber, long count) {
        return ((long) chargeNumber << 32) | count;
    }

    private static int slotOf(int key, int[] table) {
        int mask = table.length - 1;
        int slot = mix(key) & mask;
        while (table[slot] != EMPTY && table[slot] != key) {
            slot = (slot + 1) & mask;
        }
        return slot;
    }

    private static int mix(int key) {
        int h = key * 0x9E3779B9;
        return h ^ (h >>> 16);
    }

    private void grow() {
        int[] oldKeys = keys;
        long[] oldValues = values;
        keys = new int[oldKeys.length * 2];
        Arrays.fill(keys, EMPTY);
        values = new long[keys.length];
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != EMPTY) {
                int slot = slotOf(oldKeys[i], keys);
                keys[slot] = oldKeys[i];
                values[slot] = oldValues[i];
            }
        }
    }
}
