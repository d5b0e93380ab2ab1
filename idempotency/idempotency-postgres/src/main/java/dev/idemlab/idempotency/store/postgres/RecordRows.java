package dev.idemlab.idempotency.store.postgres;

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
 * completed row with neither or both of result and reason) was still written by someone who claimed
 * the key. Reading it as absent would run the action again, and throwing would too, because a
 * coordinator that fails open runs the action on a storage error. So it becomes a completed record
 * whose result "was not stored": the caller gets a clear replay error, the action does not run, and
 * the row goes away when it expires. Stateless and thread-safe.
 */
final class RecordRows {

    private static final Logger LOG = LoggerFactory.getLogger(RecordRows.class);

    /** Stands in for a missing fingerprint, which the schema forbids but a hand-made row might lack. */
    static final String UNREADABLE_FINGERPRINT = "unreadable";

    private RecordRows() { }

    static IdempotencyRecord read(ResultSet row, String table, String namespace) throws SQLException {
        String state = row.getString("state");
        String token = row.getString("token");
        String fingerprint = row.getString("fingerprint");
        String json = row.getString("result_json");
        String reason = row.getString("not_stored_reason");
        long remainingMicros = row.getLong("remaining_us");
        if (fingerprint == null) {
            return unreadable(table, namespace, UNREADABLE_FINGERPRINT, "it has no fingerprint");
        }
        if ("pending".equals(state)) {
            if (token == null) {
                return unreadable(table, namespace, fingerprint, "it is pending without an owner token");
            }
            // The row was selected because expires_at > now(), so the lease left is positive.
            return new Pending(token, fingerprint, Duration.ofNanos(Math.max(1, remainingMicros) * 1000));
        }
        if ("completed".equals(state)) {
            if ((json == null) == (reason == null)) {
                return unreadable(table, namespace, fingerprint,
                        "it is completed with " + (json == null ? "neither" : "both") + " result and reason");
            }
            return new Completed(fingerprint, new StoredResult(json, reason));
        }
        return unreadable(table, namespace, fingerprint, "its state is '" + state + "'");
    }

    private static Completed unreadable(String table, String namespace, String fingerprint, String why) {
        LOG.warn("unreadable idempotency record '{}' in table {}: {}; answering that its result was not stored",
                namespace, table, why);
        return new Completed(fingerprint, StoredResult.notStored(
                "the stored record is unreadable (" + why + "); the action is not run again"));
    }
}
