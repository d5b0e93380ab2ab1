package dev.idemlab.peers;

import dev.idemlab.provider.Charge;

import java.io.Serializable;
import java.util.Objects;

/**
 * What the guarded service returns to its client: the provider's charge id with its order and amount.
 * Serializable, because two of the libraries store results with JDK serialization or Kryo.
 *
 * @param chargeId the provider's charge id, {@code ch_N}
 * @param orderId the order charged
 * @param amount the amount charged
 */
public record ChargeReceipt(String chargeId, String orderId, long amount) implements Serializable {

    public ChargeReceipt {
        Objects.requireNonNull(chargeId, "chargeId");
        Objects.requireNonNull(orderId, "orderId");
    }

    /** The receipt for a charge the provider made. */
    public static ChargeReceipt of(Charge charge) {
        return new ChargeReceipt(charge.id(), charge.orderId(), charge.amount());
    }
}
