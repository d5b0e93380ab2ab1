package dev.idemlab.peers;

import java.io.Serializable;
import java.util.Objects;

/**
 * The request body a payment service receives: what the libraries that look at a payload (Jdempotent
 * hashes its fields, Camel and Spring Integration carry it as the message body) see.
 *
 * <p>A class with plain fields, not a record, because Jdempotent builds its key by reflecting over the
 * declared fields; serializable because its Redis repository stores the request with JDK serialization.
 * Immutable and thread-safe.
 */
public final class ChargeRequest implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String idempotencyKey;
    private final String orderId;
    private final long amount;

    public ChargeRequest(String idempotencyKey, String orderId, long amount) {
        this.idempotencyKey = Objects.requireNonNull(idempotencyKey, "idempotencyKey");
        this.orderId = Objects.requireNonNull(orderId, "orderId");
        this.amount = amount;
    }

    public String idempotencyKey() {
        return idempotencyKey;
    }

    public String orderId() {
        return orderId;
    }

    public long amount() {
        return amount;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ChargeRequest other && idempotencyKey.equals(other.idempotencyKey)
                && orderId.equals(other.orderId) && amount == other.amount;
    }

    @Override
    public int hashCode() {
        return Objects.hash(idempotencyKey, orderId, amount);
    }

    @Override
    public String toString() {
        return "ChargeRequest[key=" + idempotencyKey + ", order=" + orderId + ", amount=" + amount + "]";
    }
}
