package dev.idemlab.idempotency.spi;

import dev.idemlab.idempotency.spi.CompletionNotifications.Ending;
import dev.idemlab.idempotency.spi.CompletionNotifications.Listener;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The listeners of a {@link CompletionNotifications} store, by namespace: what every store keeps
 * locally and fires when its server (or its own map) says a reservation ended. Thread-safe.
 */
public final class NamespaceListeners {

    private final Map<String, Set<Listener>> listeners = new ConcurrentHashMap<>();

    /** Registers {@code listener} for {@code namespace}. */
    public CompletionNotifications.Subscription add(String namespace, Listener listener) {
        listeners.computeIfAbsent(namespace, ns -> ConcurrentHashMap.newKeySet()).add(listener);
        return () -> listeners.computeIfPresent(namespace, (ns, set) -> {
            set.remove(listener);
            return set.isEmpty() ? null : set;
        });
    }

    /** Tells every listener of {@code namespace} how its reservation ended; one that throws does not stop the others. */
    public void fire(String namespace, Ending ending) {
        Set<Listener> waiting = listeners.get(namespace);
        if (waiting == null) {
            return;
        }
        for (Listener listener : waiting) {
            try {
                listener.ended(ending);
            } catch (RuntimeException e) {
                // A listener only wakes a waiter; its failure must not stop the other waiters' wake-ups.
            }
        }
    }

    /** {@link #fire(String, Ending)} when the store cannot say how it ended. */
    public void fire(String namespace) {
        fire(namespace, Ending.UNKNOWN);
    }

    /** Wakes every listener of every namespace: after a lost connection, every waiter looks again. */
    public void fireAll() {
        listeners.keySet().forEach(this::fire);
    }

    /** Whether anyone listens to {@code namespace}: the store need not describe an ending nobody waits for. */
    public boolean watching(String namespace) {
        return listeners.containsKey(namespace);
    }
}
