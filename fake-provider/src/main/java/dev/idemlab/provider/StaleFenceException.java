package dev.idemlab.provider;

import java.util.Objects;

/**
 * A provider that checks fences refused a charge: a higher fencing number was already seen for
 * the same fence key, so the caller is a holder whose lease has passed to someone else. Nothing
 * was charged by the refused call.
 */
public final class StaleFenceException extends ProviderException {

    private static final long serialVersionUID = 1L;

    private final String key;
    private final long fence;
    private final long highestSeen;

    /**
     * @param key the fence key (the downstream idempotency key, or the order id without one)
     * @param fence the refused call's fencing number
     * @param highestSeen the highest fencing number accepted for the key so far
     */
    public StaleFenceException(String key, long fence, long highestSeen) {
        super("stale fence " + fence + " for " + key + ": fence " + highestSeen + " was already seen");
        this.key = Objects.requireNonNull(key, "key");
        this.fence = fence;
        this.highestSeen = highestSeen;
    }

    /** The fence key: the downstream idempotency key, or the order id when there was none. */
    public String key() {
        return key;
    }

    /** The refused call's fencing number. */
    public long fence() {
        return fence;
    }

    /** The highest fencing number accepted for the key when the call arrived. */
    public long highestSeen() {
        return highestSeen;
    }
}
