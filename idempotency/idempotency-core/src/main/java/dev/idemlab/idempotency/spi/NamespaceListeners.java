package dev.idemlab.idempotency.spi;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The listeners of a {@link CompletionNotifications} store, by namespace: what every store keeps
 * locally and fires when its server (or its own map) says a reservation ended. Thread-safe.
 */
public final class NamespaceListeners {

    private final Map<String, Set<Runnable>> listeners = new ConcurrentHashMap<>();

    /** Registers {@code listener} for {@code namespace}. */
    public CompletionNotifications.Subscription add(String namespace, Runnable listener) {
        listeners.computeIfAbsent(namespace, ns -> ConcurrentHashMap.newKeySet()).add(listener);
        return () -> listeners.computeIfPresent(namespace, (ns, set) -> {
            set.remove(listener);
            return set.isEmpty() ? null : set;
        });
    }

    /** Calls every listener of {@code namespace}; one that throws does not stop the others. */
    public void fire(String namespace) {
        Set<Runnable> waiting = listeners.get(namespace);
        if (waiting == null) {
            return;
        }
        for (Runnable listener : waiting) {
            try {
                listener.run();
            } catch (RuntimeException e) {
                // A listener only wakes a waiter; its failure must not stop the other waiters' wake-ups.
            }
        }
    }

    /** Calls every listener of every namespace: after a lost connection, every waiter looks again. */
    public void fireAll() {
        listeners.keySet().forEach(this::fire);
    }

    /** Whether anyone listens to {@code namespace}; the store can skip work when nobody does. */
    public boolean isEmpty() {
        return listeners.isEmpty();
    }
}
