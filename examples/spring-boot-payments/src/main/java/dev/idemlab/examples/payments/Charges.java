package dev.idemlab.examples.payments;

import dev.idemlab.idempotency.IdempotencyContext;

/**
 * Charges an order once per client and Idempotency-Key: the service the controller calls. Two
 * implementations, one per {@code payments.idempotency} mode. Implementations are thread-safe.
 */
public interface Charges {

    /** The operation every charge is recorded under. */
    String OPERATION = "payment.charge";

    /**
     * Charges {@code request} under {@code key}, or answers with the charge an earlier request with the
     * same key made.
     *
     * @param key the client's Idempotency-Key, 1 to 255 characters
     * @param client who asks: part of the fingerprint, so that another client's request under the same key
     *     is refused rather than answered with this client's charge
     * @param request the order and amount
     * @param attempt told whether the charge ran for this request
     * @param context the call's idempotency context, which the idempotency advice passes in (a caller
     *     passes {@code null}): its downstream key, scoped like the record and the same on every retry, is
     *     the key the provider is charged with, never the client's raw key
     * @throws dev.idemlab.idempotency.IdempotencyKeyReuseException when the key was used for another request
     * @throws dev.idemlab.idempotency.IdempotencyInProgressException when a request with the key is in flight
     *     (under {@code idempotency.policy=raise})
     * @throws ProviderException when the provider failed: nothing is stored, a retry charges again
     */
    Charge charge(String key, String client, ChargeRequest request, ChargeAttempt attempt, IdempotencyContext context);
}
