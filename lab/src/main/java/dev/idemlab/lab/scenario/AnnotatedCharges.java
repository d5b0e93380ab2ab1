package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.IdempotencyContext;
import dev.idemlab.idempotency.IdempotencyKey;
import dev.idemlab.idempotency.Idempotent;
import dev.idemlab.provider.Charge;

/**
 * The scenarios' charge as a service declares it without a framework, as docs/plain-api.md shows: the
 * operation, the key and the fields that make the fingerprint on an interface's method, which
 * {@code Idempotency.proxy} wraps ({@link CallThrough#PROXY}). Public, as a service's interface usually
 * is, so that the proxy is the JDK's kind for public interfaces.
 */
public interface AnnotatedCharges {

    /**
     * Charges {@code amount} for {@code orderId}, once per {@code key}.
     *
     * @param context filled in by the proxy: the fencing number and the downstream key
     * @return the provider's charge, fresh or replayed
     */
    @Idempotent(operation = ChargeClient.OPERATION, fingerprint = {"orderId", "amount"})
    Charge charge(@IdempotencyKey String key, String orderId, long amount, IdempotencyContext context);
}
