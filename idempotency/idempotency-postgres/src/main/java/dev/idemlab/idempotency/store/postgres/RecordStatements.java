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
            + "CASE WHEN isfinite(expires_at) THEN (extract(epoch FROM expires_at - now()) * 1000000)::bigint "
            + "END AS remaining_us";

    /** {@link #RECORD_COLUMNS} of the row aliased {@code l}. */
    private static final String LIVE_COLUMNS = "l.state, l.token, l.fingerprint, l.result_json, l.not_stored_reason, "
            + "CASE WHEN isfinite(l.expires_at) THEN (extract(epoch FROM l.expires_at - now()) * 1000000)::bigint "
            + "END AS remaining_us";

    final String reserve;
    final String renew;
    final String complete;
    final String release;
    final String lookup;
    final String sweepExpired;
    /** The channel complete and release notify, with the row's namespace as the payload. */
    final String channel;
    final String serverVersion = "SHOW server_version";

    RecordStatements(String table) {
        this.channel = table + "_events";
        // The holder's own token does not stop a reserve: a reserve whose reply was lost and is
        // retried finds itself acquired, not waiting on itself.
        this.reserve = insertOrFind(table, "'pending'", "?", "NULL", "NULL",
                "NOT (l.state = 'pending' AND l.token IS NOT DISTINCT FROM ?)",
                "r.expires_at <= now() OR (r.state = 'pending' AND r.token = excluded.token)");
        this.renew = "UPDATE " + table + " SET expires_at = now() + ? * interval '1 microsecond' "
                + "WHERE namespace = ? AND state = 'pending' AND token = ? AND expires_at > now()";
        // Late completion: the holder's own live reservation, or a key nobody holds (its row expired
        // or was swept), becomes the completed record; anyone else's live row stops it.
        String completeRow = "INSERT INTO " + table + " AS r (namespace, state, token, fingerprint, result_json, "
                + "not_stored_reason, expires_at, fence) VALUES (?, 'completed', NULL, ?, ?, ?, "
                + "now() + ? * interval '1 microsecond', NULL) "
                + "ON CONFLICT (namespace) DO UPDATE SET state = 'completed', token = NULL, "
                + "fingerprint = CASE WHEN r.expires_at <= now() THEN excluded.fingerprint ELSE r.fingerprint END, "
                + "result_json = excluded.result_json, not_stored_reason = excluded.not_stored_reason, "
                + "expires_at = excluded.expires_at "
                + "WHERE r.expires_at <= now() OR (r.state = 'pending' AND r.token = ?)";
        this.complete = notifying(completeRow);
        this.release = notifying("DELETE FROM " + table
                + " WHERE namespace = ? AND state = 'pending' AND token = ? AND expires_at > now()");
        this.lookup = "SELECT " + RECORD_COLUMNS + " FROM " + table + " WHERE namespace = ? AND expires_at > now()";
        // Bounded so that a sweep is a short statement too; SKIP LOCKED leaves rows a reserve is taking over.
        this.sweepExpired = "DELETE FROM " + table + " WHERE namespace IN (SELECT namespace FROM " + table
                + " WHERE expires_at <= now() LIMIT ? FOR UPDATE SKIP LOCKED)";
    }

    /**
     * The write, and a {@code pg_notify} of each row it wrote, in one statement: the notification is
     * delivered when the write commits, and never without it. Returns one row per row written.
     */
    private String notifying(String write) {
        return "WITH written AS (" + write + " RETURNING namespace) SELECT pg_notify('" + channel
                + "', namespace) FROM written";
    }

    /**
     * One statement that returns the live row in the way, or inserts a row (taking over an expired
     * one, or one {@code takeOver} allows) when there is none.
     *
     * <p>Parameters: namespace (and, for a reserve, the token) for the look, then namespace, token
     * (if {@code token} is {@code ?}), fingerprint, result_json and not_stored_reason (if they are
     * {@code ?}), duration in microseconds.
     *
     * <p>The live row is read first and, when there is one, nothing is inserted: no conflict, no
     * row lock, no write, so a replay costs what a read costs. When the snapshot shows no live row
     * but a concurrent statement inserted one after it was taken, the INSERT waits for it, finds the
     * conflict, may not take it over, and the statement returns no row at all; the caller then runs
     * it again with a fresh snapshot. The first row's {@code acquired} says which happened.
     */
    private static String insertOrFind(String table, String state, String token, String resultJson,
                                       String notStoredReason, String liveBlocks, String takeOver) {
        return "WITH live AS (SELECT " + LIVE_COLUMNS + " FROM " + table + " l WHERE l.namespace = ? AND l.expires_at > now() AND " + liveBlocks + "), "
                + "ins AS ("
                + "INSERT INTO " + table + " AS r "
                + "(namespace, state, token, fingerprint, result_json, not_stored_reason, expires_at, fence) "
                + "SELECT ?, " + state + ", " + token + ", ?, " + resultJson + ", " + notStoredReason
                + ", now() + ? * interval '1 microsecond', nextval('" + table + "_fence_seq') "
                + "WHERE NOT EXISTS (SELECT 1 FROM live) "
                + "ON CONFLICT (namespace) DO UPDATE SET state = excluded.state, token = excluded.token, "
                + "fingerprint = excluded.fingerprint, result_json = excluded.result_json, "
                + "not_stored_reason = excluded.not_stored_reason, expires_at = excluded.expires_at, "
                + "fence = excluded.fence "
                + "WHERE " + takeOver + " RETURNING r.fence) "
                + "SELECT true AS acquired, NULL::text AS state, NULL::text AS token, NULL::text AS fingerprint, "
                + "NULL::text AS result_json, NULL::text AS not_stored_reason, NULL::bigint AS remaining_us, "
                + "ins.fence AS fence FROM ins "
                + "UNION ALL "
                + "SELECT false, live.*, NULL::bigint FROM live";
    }
}
