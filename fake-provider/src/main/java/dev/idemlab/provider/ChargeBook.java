package dev.idemlab.provider;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The provider's ledger, indexed by charge id, by the idempotency key every charge was requested
 * with (for lookups) and, when the provider deduplicates, by the key's one charge. Thread-safe: every
 * method holds the book's monitor.
 */
final class ChargeBook {

    private final boolean deduplicateOnKey;
    private final List<Charge> ledger = new ArrayList<>();
    private final Map<String, Charge> byId = new HashMap<>();
    private final Map<String, Charge> byKey = new HashMap<>();
    private final Map<String, List<Charge>> allByKey = new HashMap<>();

    ChargeBook(boolean deduplicateOnKey) {
        this.deduplicateOnKey = deduplicateOnKey;
    }

    /**
     * Appends the charge, or replays the charge its key already names. Looking the key up and
     * appending happen under one monitor, so two identical keyed calls in flight together make
     * one ledger entry: whichever reaches this point first charges, the other replays.
     *
     * @throws ProviderKeyReuseException when the key already names a charge for another order
     *         or amount
     */
    synchronized ChargeResult chargeOrReplay(ChargeRequest request) {
        String key = deduplicateOnKey ? request.idempotencyKey() : null;
        if (key != null) {
            Charge earlier = byKey.get(key);
            if (earlier != null) {
                if (earlier.amount() != request.amount() || !earlier.orderId().equals(request.orderId())) {
                    throw new ProviderKeyReuseException(key, earlier, request.orderId(), request.amount());
                }
                return new ChargeResult(earlier, true);
            }
        }
        Charge charge = new Charge("ch_" + (ledger.size() + 1), request.orderId(), request.amount(),
                request.idempotencyKey());
        ledger.add(charge);
        byId.put(charge.id(), charge);
        if (key != null) {
            byKey.put(key, charge);
        }
        if (request.idempotencyKey() != null) {
            allByKey.computeIfAbsent(request.idempotencyKey(), k -> new ArrayList<>()).add(charge);
        }
        return new ChargeResult(charge, false);
    }

    synchronized List<Charge> snapshot() {
        return List.copyOf(ledger);
    }

    synchronized int size() {
        return ledger.size();
    }

    synchronized Optional<Charge> find(String id) {
        return Optional.ofNullable(byId.get(id));
    }

    /** Every charge requested with {@code idempotencyKey}, oldest first. */
    synchronized List<Charge> withKey(String idempotencyKey) {
        return List.copyOf(allByKey.getOrDefault(idempotencyKey, List.of()));
    }
}
