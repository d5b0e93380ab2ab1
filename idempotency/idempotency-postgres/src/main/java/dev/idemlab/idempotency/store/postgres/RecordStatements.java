package dev.idemlab.idempotency.store.postgres;

/**
 * The SQL of every store operation, for one table. Each operation runs in its own autocommit
 * transaction, so no transaction is ever held across an action. Reserve and release call the table's
 * functions of {@code schema.sql}, whose statements the server plans once per session; complete tries
 * a plain update of the common case first ({@link #completeHeld}) and otherwise calls its function.
 * Expiry is always decided by the server's {@code now()}: within one transaction it is a single
 * instant, so the checks agree with each other.
 *
 * <p>Parameters in microseconds ({@code ? * interval '1 microsecond'}) keep leases below a
 * millisecond exact. Immutable and thread-safe.
 */
final class RecordStatements {

    /** What every statement that returns a record selects, in this order. */
    static final String RECORD_COLUMNS = "state, token, fingerprint, result_json, not_stored_reason, "
            + "CASE WHEN isfinite(expires_at) THEN (extract(epoch FROM expires_at - now()) * 1000000)::bigint "
            + "END AS remaining_us";

    /** Parameters: namespace, token, fingerprint, lease in microseconds. One row: acquired, the record's columns, fence. */
    final String reserve;
    final String renew;
    /** Parameters: namespace, token, fingerprint, result_json, not_stored_reason, ttl in microseconds. One boolean. */
    final String complete;
    /**
     * The holder's own live reservation, which no waiter marked, becomes the completed record: one
     * plain update, no notification owed. Zero rows means any other case, left to {@link #complete}.
     * Parameters: result_json, not_stored_reason, ttl in microseconds, namespace, token.
     */
    final String completeHeld;
    /** Parameters: namespace, token. One boolean. */
    final String release;
    final String lookup;
    /** Marks a row as waited on, so that its ending is notified; parameter: namespace. */
    final String watch;
    final String sweepExpired;
    /**
     * In one snapshot, the recovery points (state {@code done}) and started markers ({@code started},
     * {@code unknown}) one request's holders left, and any other request's {@code unknown} marker, in step
     * order; parameters: namespace, fingerprint, namespace, fingerprint. Columns: step, phase, output,
     * state, fingerprint.
     */
    final String stepsOf;
    /** Parameters: namespace, step, phase, output, fingerprint, how long it is kept in microseconds. */
    final String recordStep;
    /**
     * Marks a remote step started (again) before it calls out; parameters: namespace, step, phase,
     * fingerprint, fence (NULL without a reservation), how long it is kept in microseconds.
     */
    final String markStarted;
    /** Deletes a step's started marker, with its recovery point; parameters: namespace, step. */
    final String forgetStart;
    /**
     * Turns this request's started marker into the kept state "unknown outcome"; parameters: namespace,
     * step, fingerprint. One row if it did.
     */
    final String markUnknown;
    /** Forgets every recovery point and started marker of a namespace; parameters: namespace, namespace. */
    final String forgetSteps;
    /**
     * Forgets the recovery points and started markers other requests (other fingerprints, or none) left on
     * a namespace; parameters: namespace, fingerprint, namespace, fingerprint.
     */
    final String forgetOtherRequestsSteps;
    /**
     * The steps stopped at an unknown outcome under a key prefix, oldest first; parameters: the prefix
     * with its brace, again, the most rows. Columns: namespace, phase, fingerprint, fence, started_at.
     */
    final String unknownOutcomes;
    /**
     * Resolves an unknown outcome as done: the marker becomes the step's recovery point with the output
     * given; parameters: namespace, phase, output, how long the point is kept in microseconds. One row if it did.
     */
    final String resolveAsDone;
    /** Resolves an unknown outcome as not done: the marker goes; parameters: namespace, phase. */
    final String resolveAsNotDone;
    /**
     * Locks the reservation of a fence against a takeover until the transaction ends (a row means the
     * fence still holds the key); parameters: namespace, fence.
     */
    final String holdFence;
    /** The channel complete and release notify, with a payload {@link EndingPayload} reads. */
    final String channel;
    final String serverVersion = "SHOW server_version";

    RecordStatements(String table) {
        this.channel = table + "_events";
        this.reserve = "SELECT acquired, state, token, fingerprint, result_json, not_stored_reason, remaining_us, "
                + "fence FROM " + table + "_reserve(?, ?, ?, ?)";
        this.renew = "UPDATE " + table + " SET expires_at = now() + ? * interval '1 microsecond' "
                + "WHERE namespace = ? AND state = 'pending' AND token = ? AND expires_at > now()";
        this.complete = "SELECT " + table + "_complete(?, ?, ?, ?, ?, ?)";
        this.completeHeld = "UPDATE " + table + " SET state = 'completed', token = NULL, result_json = ?, "
                + "not_stored_reason = ?, expires_at = now() + ? * interval '1 microsecond' "
                + "WHERE namespace = ? AND state = 'pending' AND token = ? AND expires_at > now() AND NOT watched";
        this.release = "SELECT " + table + "_release(?, ?)";
        this.lookup = "SELECT " + RECORD_COLUMNS + " FROM " + table + " WHERE namespace = ? AND expires_at > now()";
        // Only a row that is not marked yet is written: a hundred waiters on one key write it once.
        this.watch = "UPDATE " + table + " SET watched = true WHERE namespace = ? AND NOT watched";
        // Bounded so that a sweep is a short statement too; SKIP LOCKED leaves rows a reserve is taking over.
        String starts = table + "_step_starts";
        // One statement, one snapshot: a resolution committed meanwhile is seen whole or not at all.
        this.stepsOf = "SELECT step, phase, output, 'done' AS state, fingerprint FROM " + table + "_steps "
                + "WHERE namespace = ? AND fingerprint = ? UNION ALL SELECT step, phase, NULL, state, fingerprint FROM "
                + starts + " WHERE namespace = ? AND (fingerprint = ? OR state = 'unknown') ORDER BY step";
        this.recordStep = "INSERT INTO " + table + "_steps (namespace, step, phase, output, fingerprint, expires_at) "
                + "VALUES (?, ?, ?, ?, ?, now() + ? * interval '1 microsecond') ON CONFLICT (namespace, step) DO NOTHING";
        this.markStarted = "INSERT INTO " + starts + " (namespace, step, phase, fingerprint, state, fence, started_at, "
                + "expires_at) VALUES (?, ?, ?, ?, 'started', ?, now(), now() + ? * interval '1 microsecond') "
                + "ON CONFLICT (namespace, step) DO UPDATE SET phase = EXCLUDED.phase, fingerprint = EXCLUDED.fingerprint, "
                + "state = 'started', fence = EXCLUDED.fence, started_at = now(), expires_at = EXCLUDED.expires_at";
        this.forgetStart = "DELETE FROM " + starts + " WHERE namespace = ? AND step = ?";
        this.markUnknown = "UPDATE " + starts + " SET state = 'unknown', expires_at = 'infinity' "
                + "WHERE namespace = ? AND step = ? AND fingerprint = ? AND state = 'started'";
        this.forgetSteps = "WITH starts AS (DELETE FROM " + starts + " WHERE namespace = ?) DELETE FROM " + table
                + "_steps WHERE namespace = ?";
        this.forgetOtherRequestsSteps = "WITH starts AS (DELETE FROM " + starts + " WHERE namespace = ? "
                + "AND fingerprint <> ?) DELETE FROM " + table + "_steps WHERE namespace = ? "
                + "AND fingerprint IS DISTINCT FROM ?";
        this.unknownOutcomes = "SELECT namespace, phase, fingerprint, fence, started_at FROM " + starts
                + " WHERE state = 'unknown' AND left(namespace, length(?)) = ? ORDER BY started_at, namespace LIMIT ?";
        this.resolveAsDone = "WITH resolved AS (DELETE FROM " + starts + " WHERE namespace = ? AND phase = ? "
                + "AND state = 'unknown' RETURNING namespace, step, phase, fingerprint) INSERT INTO " + table
                + "_steps (namespace, step, phase, output, fingerprint, expires_at) SELECT namespace, step, phase, ?, "
                + "fingerprint, now() + ? * interval '1 microsecond' FROM resolved ON CONFLICT (namespace, step) "
                + "DO UPDATE SET phase = EXCLUDED.phase, output = EXCLUDED.output, fingerprint = EXCLUDED.fingerprint, "
                + "expires_at = EXCLUDED.expires_at";
        this.resolveAsNotDone = "DELETE FROM " + starts + " WHERE namespace = ? AND phase = ? AND state = 'unknown'";
        // FOR SHARE: a takeover (an UPDATE of the row) waits until this transaction ends; the WHERE is
        // checked again on the row's newest version, so a takeover committed first leaves no row.
        this.holdFence = "SELECT 1 FROM " + table + " WHERE namespace = ? AND state = 'pending' AND fence = ? FOR SHARE";
        // Recovery points nobody resumed go with the expired records, in the same bounded statement.
        this.sweepExpired = "WITH steps AS (DELETE FROM " + table + "_steps WHERE ctid IN (SELECT ctid FROM "
                + table + "_steps WHERE expires_at <= now() LIMIT 1000)), starts AS (DELETE FROM " + starts
                + " WHERE ctid IN (SELECT ctid FROM " + starts + " WHERE expires_at <= now() LIMIT 1000)) DELETE FROM " + table
                + " WHERE namespace IN (SELECT namespace FROM " + table
                + " WHERE expires_at <= now() LIMIT ? FOR UPDATE SKIP LOCKED)";
    }
}
