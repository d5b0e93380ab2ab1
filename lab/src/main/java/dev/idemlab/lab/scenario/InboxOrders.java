package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.store.postgres.LocalEffects;
import dev.idemlab.provider.Charge;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * The inbox's orders in the redelivery scenarios: the row each handling writes, in its record's
 * transaction, into {@link OrderPlacement#TABLE} under one order reference, so that a run reads back
 * how many rows its record left. Thread-safe once {@link #local} is set.
 */
final class InboxOrders {

    final String ref;
    volatile LocalEffects local;

    InboxOrders(String ref) {
        this.ref = ref;
    }

    InboxOrders(String ref, LocalEffects local) {
        this.ref = ref;
        this.local = local;
    }

    /** Writes the paid order row for {@code charge} on {@code connection}, in its open transaction. */
    void insert(Connection connection, Charge charge) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + OrderPlacement.TABLE
                + " (order_ref, amount, status, charge_id) VALUES (?, ?, 'paid', ?)")) {
            insert.setString(1, ref);
            insert.setLong(2, ScenarioSettings.AMOUNT);
            insert.setString(3, charge.id());
            insert.executeUpdate();
        }
    }
}
