package dev.idemlab.provider;

import java.util.Objects;

/**
 * One card charge as the provider's ledger records it.
 *
 * @param id the provider's charge id, {@code ch_1}, {@code ch_2}, ... in ledger order
 * @param orderId the order the charge belongs to
 * @param amount the amount in minor units
 * @param idempotencyKey the key the caller passed downstream, or {@code null}
 */
public record Charge(String id, String orderId, long amount, String idempotencyKey) {

    public Charge {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(orderId, "orderId");
    }
}
