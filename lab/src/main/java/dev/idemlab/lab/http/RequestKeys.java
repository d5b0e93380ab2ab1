package dev.idemlab.lab.http;

import dev.idemlab.idempotency.servlet.IdempotencyFilter;
import jakarta.servlet.http.HttpServletRequest;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The keys the demo's routes charge the provider with, and which request key each came from. A route
 * charges with the request's downstream key ({@link IdempotencyFilter#DOWNSTREAM_KEY_ATTRIBUTE}),
 * scoped to the client and the store's key prefix: the client's raw key would make a provider that
 * deduplicates refuse or merge another client's charge under the same key. The provider's ledger then
 * names only derived keys, so the demo remembers the request key behind each, and {@code GET /ledger}
 * lists it beside the charge for a black-box check (the lab's probe) to count a key's charges.
 * Thread-safe; it grows with the ledger, as the demo's in-process provider does.
 */
final class RequestKeys {

    private final Map<String, String> requestKeyByDownstreamKey = new ConcurrentHashMap<>();

    /**
     * The key to charge the provider with for {@code request}: its downstream key; under the lab's result
     * cache (RUN), which derives none, the client's own key, as the naive implementation it stands for
     * passes it on; {@code null} for a request without a key.
     */
    String downstreamKeyOf(HttpServletRequest request) {
        String requestKey = (String) request.getAttribute(IdempotencyFilter.KEY_ATTRIBUTE);
        String derived = (String) request.getAttribute(IdempotencyFilter.DOWNSTREAM_KEY_ATTRIBUTE);
        if (derived == null) {
            return requestKey;
        }
        if (requestKey != null) {
            requestKeyByDownstreamKey.putIfAbsent(derived, requestKey);
        }
        return derived;
    }

    /** The request key {@code downstreamKey} was derived from, or {@code null} when it is none this demo derived. */
    String requestKeyOf(String downstreamKey) {
        return downstreamKey == null ? null : requestKeyByDownstreamKey.get(downstreamKey);
    }
}
