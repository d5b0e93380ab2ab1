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
     * {@code unknown}) one request's holders left, and any other request's marker that stops the key (kept
     * {@code unknown}, or started by a {@code STOP} step), in step order; parameters: namespace, fingerprint,
     * namespace, fingerprint. Columns: step, phase, output, state, fingerprint, in_flight_us (how long a call
     * of the marker's holder may still be on its way; 0 once it cannot).
     */
    final String stepsOf;
    /** Parameters: namespace, step, phase, output, fingerprint, how long it is kept in microseconds. */
    final String recordStep;
    /**
     * Marks a remote step started (again) before it calls out; parameters: namespace, step, phase,
     * fingerprint, fence (NULL without a reservation), how long it is kept in microseconds, the step's
     * policy, its downstream key, namespace, fence, the step's provider deadline in microseconds.
     */
    final String markStarted;
    /** Deletes a step's started marker, with its recovery point; parameters: namespace, phase. */
    final String forgetStart;
    /**
     * Turns this request's started marker into the kept state "unknown outcome" and pins the request's
     * recovery points (no expiry) in the same statement; parameters: namespace, phase, fingerprint.
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
     * The steps stopped at an unknown outcome under a key prefix, oldest first: kept {@code unknown}, or a
     * {@code STOP} step's marker still {@code started} whose holder's lease is over; parameters: the prefix
     * with its brace, again, the most rows. Columns: namespace, phase, fingerprint, fence, started_at,
     * downstream_key.
     */
    final String unknownOutcomes;
    /**
     * Resolves an unknown outcome as done: the marker becomes the step's recovery point with the output
     * given, and the request's pinned recovery points get their ttl back; parameters: namespace, phase,
     * fingerprint or NULL, again, fence or NULL, again, ttl in microseconds, output, ttl in microseconds.
     * One row: how many it resolved.
     */
    final String resolveAsDone;
    /**
     * Resolves an unknown outcome as not done, once its marker's settle_after passed: the marker goes and
     * the request's recovery points get their ttl back; parameters as {@link #resolveAsDone} without the
     * output. One row: how many it resolved.
     */
    final String resolveAsNotDone;
    /** A stop too young to be resolved as not done; parameters: the first eight of {@link #resolveAsDone}. */
    final String tooYoung;
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
        // A marker that stops the key: kept "unknown", or a STOP step's started marker (it may have charged).
        String stops = "(state = 'unknown' OR if_unknown = 'STOP')";
        String kept = "now() + ? * interval '1 microsecond'";
        this.stepsOf = "SELECT step, phase, output, 'done' AS state, fingerprint, 0::bigint AS in_flight_us FROM "
                + table + "_steps WHERE namespace = ? AND fingerprint = ? UNION ALL SELECT step, phase, NULL, state, "
                + "fingerprint, greatest(0, extract(epoch FROM settle_after - now()) * 1000000)::bigint FROM " + starts
                + " WHERE namespace = ? AND (fingerprint = ? OR " + stops + ") ORDER BY step";
        this.recordStep = "INSERT INTO " + table + "_steps (namespace, step, phase, output, fingerprint, expires_at) "
                + "VALUES (?, ?, ?, ?, ?, now() + ? * interval '1 microsecond') ON CONFLICT (namespace, step) DO NOTHING";
        // settle_after: when the holder's lease (its reservation's expiry now, or now without one) and the
        // step's provider deadline have passed.
        this.markStarted = "INSERT INTO " + starts + " (namespace, step, phase, fingerprint, state, fence, started_at, "
                + "expires_at, if_unknown, downstream_key, settle_after) VALUES (?, ?, ?, ?, 'started', ?, now(), " + kept
                + ", ?, ?, greatest(now(), (SELECT expires_at FROM " + table + " WHERE namespace = ? AND state = 'pending' "
                + "AND fence = ?)) + ? * interval '1 microsecond') ON CONFLICT (namespace, phase) DO UPDATE SET "
                + "step = EXCLUDED.step, fingerprint = EXCLUDED.fingerprint, state = 'started', fence = EXCLUDED.fence, "
                + "started_at = now(), expires_at = EXCLUDED.expires_at, if_unknown = EXCLUDED.if_unknown, "
                + "downstream_key = EXCLUDED.downstream_key, settle_after = EXCLUDED.settle_after";
        this.forgetStart = "DELETE FROM " + starts + " WHERE namespace = ? AND phase = ?";
        // The request's recovery points are pinned with the stop: resolved on day 2, it resumes after them.
        this.markUnknown = "WITH marked AS (UPDATE " + starts + " SET state = 'unknown', expires_at = 'infinity' "
                + "WHERE namespace = ? AND phase = ? AND fingerprint = ? AND state = 'started' RETURNING namespace, "
                + "fingerprint) UPDATE " + table + "_steps SET expires_at = 'infinity' WHERE (namespace, fingerprint) "
                + "IN (SELECT namespace, fingerprint FROM marked)";
        this.forgetSteps = "WITH starts AS (DELETE FROM " + starts + " WHERE namespace = ?) DELETE FROM " + table
                + "_steps WHERE namespace = ?";
        this.forgetOtherRequestsSteps = "WITH starts AS (DELETE FROM " + starts + " WHERE namespace = ? "
                + "AND fingerprint <> ? AND NOT " + stops + ") DELETE FROM " + table + "_steps s WHERE namespace = ? "
                + "AND fingerprint IS DISTINCT FROM ? AND NOT EXISTS (SELECT 1 FROM " + starts + " m WHERE "
                + "m.namespace = s.namespace AND m.fingerprint = s.fingerprint AND " + stops + ")";
        this.unknownOutcomes = "SELECT namespace, phase, fingerprint, fence, started_at, downstream_key FROM " + starts
                + " m WHERE (state = 'unknown' OR (if_unknown = 'STOP' AND NOT EXISTS (SELECT 1 FROM " + table
                + " r WHERE r.namespace = m.namespace AND r.state = 'pending' AND r.expires_at > now()))) "
                + "AND left(namespace, length(?)) = ? ORDER BY started_at, namespace LIMIT ?";
        // Parameters: namespace, phase, fingerprint or NULL, fence or NULL (twice each).
        String which = "namespace = ? AND phase = ? AND " + stops + " AND (?::text IS NULL OR fingerprint = ?::text) "
                + "AND (?::bigint IS NULL OR coalesce(fence, 0) = ?::bigint)";
        String restore = "restored AS (UPDATE " + table + "_steps SET expires_at = " + kept + " WHERE NOT "
                + "isfinite(expires_at) AND (namespace, fingerprint) IN (SELECT namespace, fingerprint FROM resolved))";
        this.resolveAsDone = "WITH resolved AS (DELETE FROM " + starts + " WHERE " + which + " RETURNING namespace, step, "
                + "phase, fingerprint), " + restore + ", point AS (INSERT INTO " + table
                + "_steps (namespace, step, phase, output, fingerprint, expires_at) SELECT namespace, step, phase, ?, "
                + "fingerprint, " + kept + " FROM resolved ON CONFLICT (namespace, step) "
                + "DO UPDATE SET phase = EXCLUDED.phase, output = EXCLUDED.output, fingerprint = EXCLUDED.fingerprint, "
                + "expires_at = EXCLUDED.expires_at) SELECT count(*) FROM resolved";
        this.resolveAsNotDone = "WITH resolved AS (DELETE FROM " + starts + " WHERE " + which
                + " AND settle_after <= now() RETURNING namespace, fingerprint), " + restore
                + " SELECT count(*) FROM resolved";
        this.tooYoung = "SELECT settle_after FROM " + starts + " WHERE " + which + " AND settle_after > now()";
        // FOR SHARE: a takeover (an UPDATE of the row) waits until this transaction ends; the WHERE is
        // checked again on the row's newest version, so a takeover committed first leaves no row.
        this.holdFence = "SELECT 1 FROM " + table + " WHERE namespace = ? AND state = 'pending' AND fence = ? FOR SHARE";
        // Recovery points nobody resumed go with the expired records, in the same bounded statement; an
        // expired started marker of a STOP step becomes a stop (its charge may have landed), with its
        // request's recovery points pinned, and no recovery point of a stopped request goes.
        this.sweepExpired = "WITH stopped AS (UPDATE " + starts + " SET state = 'unknown', expires_at = 'infinity' "
                + "WHERE ctid IN (SELECT ctid FROM " + starts + " WHERE expires_at <= now() AND if_unknown = 'STOP' "
                + "LIMIT 1000) RETURNING namespace, fingerprint), pinned AS (UPDATE " + table + "_steps SET expires_at = "
                + "'infinity' WHERE (namespace, fingerprint) IN (SELECT namespace, fingerprint FROM stopped)), "
                + "steps AS (DELETE FROM " + table + "_steps WHERE ctid IN (SELECT ctid FROM " + table + "_steps s "
                + "WHERE expires_at <= now() AND NOT EXISTS (SELECT 1 FROM " + starts + " m WHERE m.namespace = "
                + "s.namespace AND m.fingerprint = s.fingerprint AND " + stops + ") LIMIT 1000)), starts AS (DELETE FROM "
                + starts + " WHERE ctid IN (SELECT ctid FROM " + starts + " WHERE expires_at <= now() AND NOT " + stops
                + " LIMIT 1000)) DELETE FROM " + table
                + " WHERE namespace IN (SELECT namespace FROM " + table
                + " WHERE expires_at <= now() LIMIT ? FOR UPDATE SKIP LOCKED)";
    }
}
