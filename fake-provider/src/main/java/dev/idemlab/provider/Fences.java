package dev.idemlab.provider;

import java.util.HashMap;
import java.util.Map;

/**
 * The highest fencing number seen per fence key. Thread-safe: the check and the record are one
 * step under the monitor.
 */
final class Fences {

    private final Map<String, Long> highest = new HashMap<>();

    /**
     * Admits a call carrying {@code fence} for {@code key}, recording it as the highest seen when
     * it is.
     *
     * @throws StaleFenceException when a higher fence was already seen for the key
     */
    synchronized void admit(String key, long fence) {
        Long seen = highest.get(key);
        if (seen != null && fence < seen) {
            throw new StaleFenceException(key, fence, seen);
        }
        highest.put(key, fence);
    }
}
