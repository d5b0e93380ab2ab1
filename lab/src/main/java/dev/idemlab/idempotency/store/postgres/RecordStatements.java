package dev.idemlab.idempotency.store.postgres;

/**
 * The SQL of every store operation, for one table. Each operation is one statement, run in its own
 * autocommit transaction, so no transaction is ever held across an action. Expiry is always decided
 * by the server's {@code now()}: within one statement it is a single instant, so the checks below
 * agree with each other.
 *
 * <p>Parameters in microseconds ({@code ? * interval '1 microsecond'}) keep leases below a
 * millisecond exact. Immutable and thread-safe.
 */
final class RecordStatements {

    /** What every statement that returns a record selects, in this order. */
    static final String RECORD_COLUMNS = "state, token, fingerprint, result_json, not_stored_reason, "
            + "(extract(epoch FROM expires_at - now()) * 1000000)::bigint AS remaining_us";

    final String reserve;
    final String complete;
    final String release;
    final String lookup;
    final String putIfAbsent;
    final String sweepExpired;
    final String serverVersion = "SHOW server_version";

    RecordStatements(String table) {
        this.reserve = insertOrFind(table, "'pending'", "?", "NULL", "NULL",
                // Take over an expired row; and let the holder's own token in again, so that a reserve
                // whose reply was lost and is retried finds itself acquired, not waiting on itself.
                "r.expires_at <= now() OR (r.state = 'pending' AND r.token = excluded.token)");
        this.putIfAbsent = insertOrFind(table, "'completed'", "NULL", "?", "?", "r.expires_at <= now()");
        this.complete = "UPDATE " + table + " SET state = 'completed', token = NULL, result_json = ?, "
                + "not_stored_reason = ?, expires_at = now() + ? * interval '1 microsecond' "
                + "WHERE namespace = ? AND state = 'pending' AND token = ? AND expires_at > now()";
        this.release = "DELETE FROM " + table
                + " WHERE namespace = ? AND state = 'pending' AND token = ? AND expires_at > now()";
        this.lookup = "SELECT " + RECORD_COLUMNS + " FROM " + table + " WHERE namespace = ? AND expires_at > now()";
        // Bounded so that a sweep is a short statement too; SKIP LOCKED leaves rows a reserve is taking over.
        this.sweepExpired = "DELETE FROM " + table + " WHERE namespace IN (SELECT namespace FROM " + table
                + " WHERE expires_at <= now() LIMIT ? FOR UPDATE SKIP LOCKED)";
    }

    /**
     * One statement that inserts a row, or takes over the existing one when {@code takeOver} holds,
     * and otherwise returns the live row that stopped it.
     *
     * <p>Parameters: namespace, token (if {@code token} is {@code ?}), fingerprint, result_json and
     * not_stored_reason (if they are {@code ?}), duration in microseconds, namespace again.
     *
     * <p>The first row's {@code acquired} says which happened. The fallback SELECT reads the
     * statement's snapshot: when a concurrent statement inserted or changed the row after that
     * snapshot was taken, the conflict is seen (the INSERT waits for it) but the row is not, and the
     * statement returns no row at all. The caller then simply runs it again, with a fresh snapshot.
     */
    private static String insertOrFind(String table, String state, String token, String resultJson,
                                       String notStoredReason, String takeOver) {
        return "WITH ins AS ("
                + "INSERT INTO " + table + " AS r "
                + "(namespace, state, token, fingerprint, result_json, not_stored_reason, expires_at) "
                + "VALUES (?, " + state + ", " + token + ", ?, " + resultJson + ", " + notStoredReason
                + ", now() + ? * interval '1 microsecond') "
                + "ON CONFLICT (namespace) DO UPDATE SET state = excluded.state, token = excluded.token, "
                + "fingerprint = excluded.fingerprint, result_json = excluded.result_json, "
                + "not_stored_reason = excluded.not_stored_reason, expires_at = excluded.expires_at "
                + "WHERE " + takeOver + " RETURNING 1) "
                + "SELECT true AS acquired, NULL::text AS state, NULL::text AS token, NULL::text AS fingerprint, "
                + "NULL::text AS result_json, NULL::text AS not_stored_reason, NULL::bigint AS remaining_us FROM ins "
                + "UNION ALL "
                + "SELECT false, " + RECORD_COLUMNS + " FROM " + table
                + " WHERE namespace = ? AND expires_at > now() AND NOT EXISTS (SELECT 1 FROM ins)";
    }
}
