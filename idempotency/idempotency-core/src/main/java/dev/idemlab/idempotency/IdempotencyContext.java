package dev.idemlab.idempotency;

/**
 * What an action may know about the call it runs for: the operation and key, the reservation's
 * fencing number, a downstream key to pass to the provider it calls, and the request's fingerprint.
 *
 * <p>The fencing number is greater than that of every earlier reservation of the key, so a resource
 * that remembers the highest it has seen can refuse a holder whose lease was taken over (a paused
 * process that wakes up late). The downstream key is the same for every retry of the same request,
 * in every process: passed to a provider that deduplicates on its own key, it makes the effect happen
 * once even where this coordinator could not (a crashed holder, a store that was down).
 *
 * <p>The fingerprint tells this request apart from another one that uses the same key after this one
 * failed and released it: whatever an action keeps for a retry to pick up (a workflow's recovery
 * points) belongs to the key and the fingerprint together, never to the key alone.
 *
 * <p>The downstream key's rule: {@code idem_} followed by the first 40 hex characters of the SHA-256
 * of the record's name in the store, {@code prefix{operation:key}} (the store's
 * {@link dev.idemlab.idempotency.spi.IdempotencyStore#keyPrefix() key prefix}, then the namespace in
 * braces, UTF-8). It is derived from everything that scopes the record and nothing else: two tenants
 * (store key prefixes) or two clients (the HTTP filter puts the client's scope into the operation)
 * that send the same key get different downstream keys, never one that a provider would deduplicate
 * or refuse as the other's; and a retry, in this process or another with the same configuration,
 * gets the same one. Pass it, never the client's raw key, to a provider.
 *
 * <p>Immutable and thread-safe.
 *
 * @param operation the call's operation
 * @param key the client's idempotency key, or {@code null} when none was given
 * @param fence the reservation's fencing number, or {@link #NO_FENCE} when the action runs without a
 *     reservation (no key, or the store failed and the coordinator failed open)
 * @param downstreamKey a key for the provider derived from the store's key prefix, the operation and the
 *     key (the rule above), or {@code null} without a key
 * @param fingerprint the request's fingerprint as {@link Fingerprint#hex()} gives it, or {@code null} for a
 *     context built without one
 */
public record IdempotencyContext(String operation, String key, long fence, String downstreamKey, String fingerprint) {

    /** The fence of an action that runs without a reservation. */
    public static final long NO_FENCE = 0;

    /**
     * A context without the request's fingerprint, as contexts were before they carried it: for a caller
     * that builds one by hand (a test calling an {@code @Idempotent} method directly). An action that keeps
     * state for a retry, such as a workflow, refuses a keyed context without a fingerprint.
     */
    public IdempotencyContext(String operation, String key, long fence, String downstreamKey) {
        this(operation, key, fence, downstreamKey, null);
    }

    /** Whether the action runs under a reservation of the key (and so has a fencing number). */
    public boolean reserved() {
        return fence != NO_FENCE;
    }
}
