package dev.idemlab.examples.payments;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.jdbc.support.KeyHolder;
import org.springframework.stereotype.Component;

/**
 * The business of a charge, without idempotency: records the order in the {@code payments_sample_orders} table, charges
 * it at the provider with the downstream key it is given, and records the charge id. Every run is one more
 * order row and one more charge: making it run once per key is the caller's job.
 *
 * <p>Once the provider has charged, nothing here fails the call: a charge that happened is this call's
 * result. Were the order row's update to throw (a connection lost under it, the pool out of
 * connections), the advice would take the call for a failure and release the key, and the client's retry
 * would charge the card again at any provider that does not deduplicate. So the update is tried again
 * once, on another connection, and if that fails too the order row is left {@code created}, logged at
 * WARN with the charge's id for reconciliation, and the charge is returned. Thread-safe.
 */
@Component
public class OrderCharges {

    private static final Logger LOG = LoggerFactory.getLogger(OrderCharges.class);

    private final JdbcClient jdbc;
    private final ProviderClient provider;
    private final ChargeKeys chargeKeys;

    OrderCharges(JdbcClient jdbc, ProviderClient provider, ChargeKeys chargeKeys) {
        this.jdbc = jdbc;
        this.provider = provider;
        this.chargeKeys = chargeKeys;
    }

    /**
     * Records and charges the order.
     *
     * @param key the client's Idempotency-Key, recorded with the order
     * @param downstreamKey the key the provider is charged with, or {@code null} for none
     *
     * @throws ProviderException when the provider did not charge; the order row stays {@code created}
     */
    Charge charge(String key, String client, ChargeRequest request, ChargeAttempt attempt, String downstreamKey) {
        attempt.ran();
        KeyHolder row = new GeneratedKeyHolder();
        jdbc.sql("INSERT INTO " + OrdersTableShape.TABLE + " (order_id, client, idempotency_key, amount, status) VALUES (?, ?, ?, ?, 'created')")
                .params(request.orderId(), client, key, request.amount())
                .update(row, "id");
        long id = row.getKeyAs(Long.class);
        chargeKeys.charging(downstreamKey, key);
        ProviderClient.ProviderCharge charged = provider.charge(request.orderId(), request.amount(), downstreamKey);
        recordCharged(id, charged.id());
        return new Charge(charged.id(), request.orderId(), request.amount());
    }

    /** Marks the order row charged, trying twice; a row it could not mark is logged, never thrown. */
    private void recordCharged(long id, String chargeId) {
        try {
            markCharged(id, chargeId);
        } catch (DataAccessException first) {
            try {
                markCharged(id, chargeId);
            } catch (DataAccessException again) {
                again.addSuppressed(first);
                LOG.warn("order row {} stays 'created' although the provider charged {}: its update failed twice; "
                        + "the charge stands and is this call's result", id, chargeId, again);
            }
        }
    }

    private void markCharged(long id, String chargeId) {
        jdbc.sql("UPDATE " + OrdersTableShape.TABLE + " SET status = 'charged', charge_id = ? WHERE id = ?")
                .params(chargeId, id).update();
    }
}
