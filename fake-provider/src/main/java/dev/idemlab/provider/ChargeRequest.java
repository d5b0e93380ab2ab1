package dev.idemlab.provider;

import java.util.Objects;

/**
 * One request to charge a card, as a caller sends it to the provider.
 *
 * <p>The fence is checked only by a provider built with {@code checkFences(true)}; the
 * idempotency key is deduplicated on only by one built with {@code deduplicateOnKey(true)}.
 *
 * @param orderId the order being paid, not {@code null}
 * @param amount the amount in minor units, positive
 * @param idempotencyKey the caller's key, passed downstream; {@code null} when there is none
 * @param fence the caller's fencing number for its key, or {@code null} when it has none
 */
public record ChargeRequest(String orderId, long amount, String idempotencyKey, Long fence) {

    /**
     * Checks the request.
     *
     * @throws NullPointerException when the order id is {@code null}
     * @throws IllegalArgumentException when the amount is not positive
     */
    public ChargeRequest {
        Objects.requireNonNull(orderId, "orderId");
        if (amount <= 0) {
            throw new IllegalArgumentException("amount must be positive: " + amount);
        }
    }

    /** A request with neither key nor fence. */
    public static ChargeRequest of(String orderId, long amount) {
        return new ChargeRequest(orderId, amount, null, null);
    }

    /** A request with a downstream key (may be {@code null}) and no fence. */
    public static ChargeRequest of(String orderId, long amount, String idempotencyKey) {
        return new ChargeRequest(orderId, amount, idempotencyKey, null);
    }

    /** This request carrying the given fencing number. */
    public ChargeRequest withFence(long fence) {
        return new ChargeRequest(orderId, amount, idempotencyKey, fence);
    }

    /**
     * What the fence is checked against: the downstream idempotency key, or the order id when
     * the request carries no key. A fence belongs to one logical operation, and the key names
     * that operation when there is one.
     */
    public String fenceKey() {
        return idempotencyKey != null ? idempotencyKey : orderId;
    }
}
