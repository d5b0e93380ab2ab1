package dev.idemlab.examples.payments;

import dev.idemlab.idempotency.IdempotencyContext;
import dev.idemlab.idempotency.IdempotencyKey;
import dev.idemlab.idempotency.Idempotent;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Service;

/**
 * Charges through the starter's reservation ({@code payments.idempotency=reservation}, the default):
 * the first request with a key reserves it and charges; a retry while it runs waits for its charge
 * ({@code idempotency.policy=wait}) or is refused with 409 ({@code raise}); a later retry replays it.
 * A provider failure releases the key.
 *
 * <p>Both halves of the post's advice for a charge: the store fails closed
 * ({@code idempotency.store-failure-mode=fail-closed} in {@code application.properties}: a store that cannot
 * be reached is a 503, never a charge without a record), and the provider gets the call's downstream key
 * ({@link IdempotencyContext#downstreamKey()}, the same for every retry of the request), so a provider that
 * deduplicates on it charges once even where the reservation could not hold (a holder that died after the
 * charge, a lease that ran out). Thread-safe.
 */
@Service
@ConditionalOnProperty(name = "payments.idempotency", havingValue = "reservation", matchIfMissing = true)
public class ReservedCharges implements Charges {

    private final OrderCharges orders;

    ReservedCharges(OrderCharges orders) {
        this.orders = orders;
    }

    @Override
    @Idempotent(operation = OPERATION, fingerprint = {"client", "request.orderId", "request.amount"})
    public Charge charge(@IdempotencyKey String key, String client, ChargeRequest request, ChargeAttempt attempt,
                         IdempotencyContext context) {
        // The advice passes the call's context; without the advice (idempotency.aspect.enabled=false) none.
        return orders.charge(key, client, request, attempt, context == null ? null : context.downstreamKey());
    }
}
