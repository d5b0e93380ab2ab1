package dev.idemlab.examples.payments;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.jdbc.support.KeyHolder;
import org.springframework.stereotype.Component;

/**
 * The business of a charge, without idempotency: records the order in the {@code payments_sample_orders} table, charges
 * it at the provider with the downstream key it is given, and records the charge id. Every run is one more
 * order row and one more charge: making it run once per key is the caller's job. Thread-safe.
 */
@Component
public class OrderCharges {

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
        jdbc.sql("UPDATE " + OrdersTableShape.TABLE + " SET status = 'charged', charge_id = ? WHERE id = ?").params(charged.id(), id).update();
        return new Charge(charged.id(), request.orderId(), request.amount());
    }
}
