package dev.idemlab.lab.load.raw;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The memory baseline: a bare {@link ConcurrentHashMap} holding a value of the size a record holds.
 * Thread-safe.
 */
public final class MemoryRawStore implements RawStore {

    /** About what a pending record carries: an owner token and a fingerprint. */
    static final String PENDING = "0123456789abcdef-1:" + "0".repeat(64);
    /** What a completed record carries before its result: a fingerprint. */
    static final String COMPLETED_PREFIX = "0".repeat(64) + ":";
    /** About what a completed record carries: a fingerprint and a small JSON result. */
    static final String COMPLETED = COMPLETED_PREFIX + "\"ch_1\"";

    private volatile ConcurrentHashMap<String, String> map = new ConcurrentHashMap<>();

    @Override
    public Object reserve(String key) {
        return map.putIfAbsent(key, PENDING);
    }

    @Override
    public Object plainWrite(String key) {
        ConcurrentHashMap<String, String> m = map;
        m.putIfAbsent(key, PENDING);
        return m.replace(key, COMPLETED);
    }

    @Override
    public boolean markPending(String key) {
        return map.putIfAbsent(key, PENDING) == null;
    }

    @Override
    public void storeResult(String key, String resultJson) {
        map.replace(key, COMPLETED_PREFIX + resultJson);
    }

    @Override
    public String readResult(String key) {
        String value = map.get(key);
        return value != null && value.startsWith(COMPLETED_PREFIX) ? value.substring(COMPLETED_PREFIX.length()) : null;
    }

    @Override
    public Object plainRead(String key) {
        return map.get(key);
    }

    @Override
    public void seed(String key) {
        map.put(key, COMPLETED);
    }

    @Override
    public void forgetKeys() {
        map = new ConcurrentHashMap<>();
    }

    @Override
    public void close() {
        map = new ConcurrentHashMap<>();
    }
}
