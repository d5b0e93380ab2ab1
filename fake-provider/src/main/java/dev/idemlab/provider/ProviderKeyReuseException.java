package dev.idemlab.provider;

import java.util.Objects;

/**
 * A provider that deduplicates on the downstream idempotency key refused a charge: the key was
 * already charged for another order or amount. Nothing was charged by the refused call.
 */
public final class ProviderKeyReuseException extends ProviderException {

    private static final long serialVersionUID = 1L;

    private final String key;
    private final Charge earlierCharge;
    private final String requestedOrderId;
    private final long requestedAmount;

    /**
     * @param key the reused key
     * @param earlierCharge the charge the key already names
     * @param requestedOrderId the order the refused call asked to charge
     * @param requestedAmount the amount the refused call asked to charge
     */
    public ProviderKeyReuseException(String key, Charge earlierCharge, String requestedOrderId, long requestedAmount) {
        super("idempotency key " + key + " already charged " + earlierCharge.id() + " (order "
                + earlierCharge.orderId() + ", amount " + earlierCharge.amount() + "); refused order "
                + requestedOrderId + ", amount " + requestedAmount);
        this.key = Objects.requireNonNull(key, "key");
        this.earlierCharge = earlierCharge;
        this.requestedOrderId = requestedOrderId;
        this.requestedAmount = requestedAmount;
    }

    /** The reused downstream idempotency key. */
    public String key() {
        return key;
    }

    /** The charge the key already names. */
    public Charge earlierCharge() {
        return earlierCharge;
    }

    /** The amount charged under the key the first time. */
    public long chargedAmount() {
        return earlierCharge.amount();
    }

    /** The order the refused call asked to charge. */
    public String requestedOrderId() {
        return requestedOrderId;
    }

    /** The amount the refused call asked to charge. */
    public long requestedAmount() {
        return requestedAmount;
    }
}
