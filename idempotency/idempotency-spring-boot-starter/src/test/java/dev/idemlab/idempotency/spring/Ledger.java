package dev.idemlab.idempotency.spring;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The tests' payment provider: every charge gets the next {@code ch_N} and is appended to its order's
 * entries. The ledger, not the responses, is what says how many times a card was charged. Thread-safe.
 */
final class Ledger {

    private final AtomicInteger next = new AtomicInteger();
    private final Map<String, List<String>> charges = new ConcurrentHashMap<>();

    String charge(String orderId, long amount) {
        String id = "ch_" + next.incrementAndGet();
        charges.computeIfAbsent(orderId, order -> new CopyOnWriteArrayList<>()).add(id);
        return id;
    }

    List<String> chargesOf(String orderId) {
        return List.copyOf(charges.getOrDefault(orderId, List.of()));
    }
}
