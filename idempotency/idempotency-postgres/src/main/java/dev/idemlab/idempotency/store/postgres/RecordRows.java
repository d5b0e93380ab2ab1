package dev.idemlab.idempotency.store.postgres;

import dev.idemlab.idempotency.IdempotencyRecordUnreadableException;
import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Completed;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Pending;
import dev.idemlab.idempotency.spi.StoredResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;

/**
 * Turns a row selected with {@link RecordStatements#RECORD_COLUMNS} into a record.
 *
 * <p>A row this reader cannot understand (an unknown state, a reservation without a token, a
 * completed row with neither or both of result and reason, a row that never expires) was still
 * written by someone who claimed the key. Reading it as absent would run the action again, and so
 * would a storage error, on which a coordinator fails open. So it is refused with
 * {@link IdempotencyRecordUnreadableException}: the call fails, the action does not run, and the row
 * waits for someone to look at it. Stateless and thread-safe.
 */
final class RecordRows {

    private static final Logger LOG = LoggerFactory.getLogger(RecordRows.class);

    private RecordRows() { }

    static IdempotencyRecord read(ResultSet row, String table, String namespace) throws SQLException {
        String state = row.getString("state");
        String token = row.getString("token");
        String fingerprint = row.getString("fingerprint");
        String json = row.getString("result_json");
        String reason = row.getString("not_stored_reason");
        long remainingMicros = row.getLong("remaining_us");
        if (row.wasNull()) {
            throw unreadable(table, namespace, "it never expires (expires_at is not a finite time)");
        }
        if (fingerprint == null) {
            throw unreadable(table, namespace, "it has no fingerprint");
        }
        if ("pending".equals(state)) {
            if (token == null) {
                throw unreadable(table, namespace, "it is pending without an owner token");
            }
            // The row was selected because expires_at > now(), so the lease left is positive.
            return new Pending(token, fingerprint, Duration.ofNanos(Math.max(1, remainingMicros) * 1000));
        }
        if ("completed".equals(state)) {
            if ((json == null) == (reason == null)) {
                throw unreadable(table, namespace,
                        "it is completed with " + (json == null ? "neither" : "both") + " result and reason");
            }
            return new Completed(fingerprint, new StoredResult(json, reason));
        }
        throw unreadable(table, namespace, "its state is '" + state + "'");
    }

    private static IdempotencyRecordUnreadableException unreadable(String table, String namespace, String why) {
        LOG.warn("unreadable idempotency record '{}' in table {}: {}; refusing the call", namespace, table, why);
        return new IdempotencyRecordUnreadableException("postgres", namespace, why + " (table " + table + ")", null);
    }
}
