package dev.idemlab.examples.payments.webflux;

import org.springframework.stereotype.Component;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The in-process payment provider: it makes a charge every time it is asked, as a provider that does
 * not deduplicate would, so its ledger shows whether the service in front asked once per key. Each
 * entry names the key the service charged with ({@code idempotency_key}: the filter's downstream key,
 * scoped per client) and the client's own key behind it ({@code request_key}). It can be told to fail
 * its next charges before making them ({@code POST /faults}). Thread-safe.
 */
@Component
public class Ledger {

    private final List<Map<String, Object>> charges = new ArrayList<>();
    private final AtomicInteger failNext = new AtomicInteger();

    /**
     * Makes a charge.
     *
     * @throws ProviderDownException when told to fail this charge; nothing is charged then
     */
    public synchronized Map<String, Object> charge(String order, long amount, String downstreamKey, String requestKey) {
        if (failNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            throw new ProviderDownException();
        }
        Map<String, Object> charge = new LinkedHashMap<>();
        charge.put("id", "ch_" + (charges.size() + 1));
        charge.put("order", order);
        charge.put("amount", amount);
        charge.put("idempotency_key", downstreamKey);
        charge.put("request_key", requestKey);
        charges.add(charge);
        return java.util.Collections.unmodifiableMap(charge);
    }

    /** Every charge made, oldest first. */
    public synchronized List<Map<String, Object>> charges() {
        return charges.stream().map(java.util.Collections::unmodifiableMap).toList();
    }

    /** Fails the next {@code count} charges before they are made. */
    public void failNext(int count) {
        failNext.set(count);
    }

    /** The provider failed a charge before making it. */
    public static final class ProviderDownException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        ProviderDownException() {
            super("the provider is down: nothing was charged", null, false, false);
        }
    }
}
