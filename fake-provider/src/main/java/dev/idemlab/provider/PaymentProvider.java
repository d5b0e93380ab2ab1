package dev.idemlab.provider;

import java.util.List;
import java.util.Optional;

/**
 * A payment provider whose ledger can be read back: the in-process {@link FakePaymentProvider},
 * or the same provider behind HTTP. Implementations are thread-safe.
 */
public interface PaymentProvider {

    /**
     * Charges a card.
     *
     * @param request what to charge
     * @return the charge as recorded in the ledger (a replayed one when the provider deduplicates)
     * @throws ProviderTimeoutException when the provider did not answer in time
     * @throws ProviderKeyReuseException when the provider deduplicates on keys and the key was
     *         charged for another order or amount; nothing is charged
     * @throws StaleFenceException when the provider checks fences and a higher fence was seen for
     *         the request's fence key; nothing is charged
     */
    Charge charge(ChargeRequest request);

    /**
     * Charges a card with no fence; the same as {@code charge(new ChargeRequest(orderId, amount,
     * idempotencyKey, null))}.
     *
     * @param orderId the order being paid
     * @param amount the amount in minor units, positive
     * @param idempotencyKey the caller's key, passed downstream; may be {@code null}
     * @return the charge as recorded in the ledger
     * @throws NullPointerException when the order id is {@code null}
     * @throws IllegalArgumentException when the amount is not positive
     * @throws ProviderException as {@link #charge(ChargeRequest)} does
     */
    default Charge charge(String orderId, long amount, String idempotencyKey) {
        return charge(new ChargeRequest(orderId, amount, idempotencyKey, null));
    }

    /** A snapshot of the ledger, in charge order. */
    List<Charge> ledger();

    /** The ids of the ledger's charges, in order: {@code [ch_1, ch_2, ...]}. */
    default List<String> chargeIds() {
        return ledger().stream().map(Charge::id).toList();
    }

    /** How many charges the ledger holds. */
    default int chargeCount() {
        return ledger().size();
    }

    /**
     * Looks a charge up by its id.
     *
     * @param id a charge id such as {@code ch_1}
     * @return the charge, or empty when the ledger holds none with that id
     */
    Optional<Charge> findCharge(String id);

    /**
     * The charges made under {@code idempotencyKey}, in charge order: what a real provider's "retrieve
     * by idempotency key" (or its list of charges, filtered) answers, for a caller that must learn
     * whether an earlier call whose answer it lost charged before it calls again. A provider that does
     * not deduplicate may hold several; one that does, at most one. An empty list says that no call with
     * that key has charged <em>so far</em>: a call still in flight may yet.
     *
     * <p>This default reads the whole ledger; implementations that index their charges override it.
     *
     * @param idempotencyKey the key the charges were requested with
     * @return the charges with that key, oldest first; empty when there are none
     * @throws NullPointerException when the key is {@code null}
     */
    default List<Charge> chargesWithKey(String idempotencyKey) {
        java.util.Objects.requireNonNull(idempotencyKey, "idempotencyKey");
        return ledger().stream().filter(charge -> idempotencyKey.equals(charge.idempotencyKey())).toList();
    }
}
