-- Idempotency store schema, version 5.
-- Applied by PostgresIdempotencyStore when it starts. A table of version 2, 3 or 4 is upgraded in place first
-- (SchemaScript adds what each later version added: the watched column in 3, the recovery points'
-- fingerprint in 4; the remote steps' started markers of 5 are a table of their own, which this script
-- creates); a table of any other version is refused (see SchemaScript).
-- Every statement is idempotent, so applying it again (or from several clients at once, under an
-- advisory lock) changes nothing.
-- ${table} is replaced by the configured table name, a checked plain identifier.

-- One row per namespace (prefix{operation:key}). A row whose expires_at has passed, by the server's
-- now(), counts as absent: reserve takes it over, a late complete fills it, and sweepExpired deletes it.
-- state is 'pending' (token set; the lease ends at expires_at) or 'completed' (exactly one of
-- result_json and not_stored_reason set; the ttl ends at expires_at). fence is the reservation's
-- fencing number (see ${table}_next_fence). state is not
-- constrained here on purpose: a reader refuses a row it cannot understand, never treats it as absent.
-- watched is set by a waiter that subscribed to the row; only a watched row's ending is notified,
-- since a notifying transaction takes the server's notify-queue lock at commit and so serialises
-- every committer behind it.
CREATE TABLE IF NOT EXISTS ${table} (
    namespace         text        PRIMARY KEY,
    state             text        NOT NULL,
    token             text,
    fingerprint       text        NOT NULL,
    result_json       text,
    not_stored_reason text,
    expires_at        timestamptz NOT NULL,
    fence             bigint,
    watched           boolean     NOT NULL DEFAULT false
);

CREATE SEQUENCE IF NOT EXISTS ${table}_fence_seq;

-- next_fence: the greater of the server's clock in microseconds, the sequence's next value and the
-- row's last fence plus one (p_last, NULL when there is no row); the sequence is moved up to it, so
-- that it holds the highest fence given. The clock covers a sequence the server lost: a promoted
-- replica that had not replayed the last reservations, a restore from an older backup; it has moved
-- past every fence given before. The sequence and the row cover a clock that stepped back. setval is
-- not transactional and two sessions may set it in either order, so it may lag the highest fence by
-- the microseconds between them: the clock covers that too. (Microseconds since 1970 fit a bigint.)
CREATE OR REPLACE FUNCTION ${table}_next_fence(p_last bigint)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    v_fence bigint := greatest(nextval('${table}_fence_seq'),
                               (extract(epoch FROM clock_timestamp()) * 1000000)::bigint,
                               p_last + 1);
BEGIN
    PERFORM setval('${table}_fence_seq', v_fence);
    RETURN v_fence;
END
$$;

-- The sweep looks for expired rows only.
CREATE INDEX IF NOT EXISTS ${table}_expires_at_idx ON ${table} (expires_at);

-- The operations are functions so that each is one short call whose statements the server plans once
-- per session; a replay is then one index lookup. Expiry is the transaction's now(), one instant.

-- reserve: the live row in the way (acquired false, with the record's columns), or a new reservation
-- of an absent key, or one taking over an expired row or the caller's own (acquired true, with its
-- fence). A plain insert first, since a fresh key is the common case after the look, and a takeover
-- only when a row is there. A row written by a concurrent reserve after the look is seen by the next
-- look, each statement of a volatile function taking a fresh snapshot.
CREATE OR REPLACE FUNCTION ${table}_reserve(p_namespace text, p_token text, p_fingerprint text, p_lease_us bigint,
        OUT acquired boolean, OUT state text, OUT token text, OUT fingerprint text, OUT result_json text,
        OUT not_stored_reason text, OUT remaining_us bigint, OUT fence bigint)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
    FOR attempt IN 1..5 LOOP
        SELECT false, l.state, l.token, l.fingerprint, l.result_json, l.not_stored_reason,
               CASE WHEN isfinite(l.expires_at) THEN (extract(epoch FROM l.expires_at - now()) * 1000000)::bigint END
          INTO acquired, state, token, fingerprint, result_json, not_stored_reason, remaining_us
          FROM ${table} l
         WHERE l.namespace = p_namespace AND l.expires_at > now()
           AND NOT (l.state = 'pending' AND l.token IS NOT DISTINCT FROM p_token);
        IF FOUND THEN
            RETURN;
        END IF;
        INSERT INTO ${table} (namespace, state, token, fingerprint, expires_at, fence)
        VALUES (p_namespace, 'pending', p_token, p_fingerprint, now() + p_lease_us * interval '1 microsecond',
                ${table}_next_fence(NULL))
        ON CONFLICT (namespace) DO NOTHING
        RETURNING fence INTO fence;
        IF NOT FOUND THEN
            UPDATE ${table} AS r SET state = 'pending', token = p_token, fingerprint = p_fingerprint,
                result_json = NULL, not_stored_reason = NULL,
                expires_at = now() + p_lease_us * interval '1 microsecond',
                fence = ${table}_next_fence(r.fence), watched = false
            WHERE r.namespace = p_namespace
              AND (r.expires_at <= now() OR (r.state = 'pending' AND r.token = p_token))
            RETURNING r.fence INTO fence;
        END IF;
        IF FOUND THEN
            acquired := true;
            RETURN;
        END IF;
    END LOOP;
    RAISE EXCEPTION 'reserve of % found neither room for its row nor the row in the way after 5 attempts', p_namespace;
END
$$;

-- The payload of a notification: kind, then the code-point lengths of namespace, token and
-- fingerprint, then the three and the rest, so that no character of any field is ever a delimiter:
-- c:N:T:F:<namespace><token><fingerprint>j<result_json> (or r<not_stored_reason>) for a completion,
-- r:N:T:0:<namespace><token> for a release, and u:N:T:0:<namespace><token> for a completion whose
-- record would not fit in a payload (under 8000 bytes), which the listener answers as unknown.
CREATE OR REPLACE FUNCTION ${table}_ending(p_kind text, p_namespace text, p_token text, p_fingerprint text,
        p_rest text)
RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT p_kind || ':' || char_length(p_namespace) || ':' || char_length(p_token) || ':'
        || coalesce(char_length(p_fingerprint), 0) || ':' || p_namespace || p_token || coalesce(p_fingerprint, '')
        || coalesce(p_rest, '')
$$;

-- complete: the holder's own live reservation, or a key nobody holds (its row expired or was swept),
-- becomes the completed record; anyone else's live row stops it. True if it wrote; a watched row's
-- waiters are told the record. The common case, the holder's own row, is a plain UPDATE; only a
-- late completion of a swept row inserts. The store sends the commonest case, the holder's own live
-- row that no waiter marked, as that plain UPDATE on its own first (no function call, nothing to
-- notify), and calls this function only when it changed no row.
CREATE OR REPLACE FUNCTION ${table}_complete(p_namespace text, p_token text, p_fingerprint text,
        p_result_json text, p_not_stored_reason text, p_ttl_us bigint)
RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    v_fingerprint text;
    v_watched boolean;
    v_payload text;
BEGIN
    UPDATE ${table} AS r SET state = 'completed', token = NULL,
        fingerprint = CASE WHEN r.expires_at <= now() THEN p_fingerprint ELSE r.fingerprint END,
        result_json = p_result_json, not_stored_reason = p_not_stored_reason,
        expires_at = now() + p_ttl_us * interval '1 microsecond'
    WHERE r.namespace = p_namespace AND (r.expires_at <= now() OR (r.state = 'pending' AND r.token = p_token))
    RETURNING r.fingerprint, r.watched INTO v_fingerprint, v_watched;
    IF NOT FOUND THEN
        -- No row, or a live one of someone else's, which stops the insert too.
        INSERT INTO ${table} (namespace, state, token, fingerprint, result_json, not_stored_reason, expires_at)
        VALUES (p_namespace, 'completed', NULL, p_fingerprint, p_result_json, p_not_stored_reason,
                now() + p_ttl_us * interval '1 microsecond')
        ON CONFLICT (namespace) DO NOTHING
        RETURNING fingerprint, watched INTO v_fingerprint, v_watched;
        IF NOT FOUND THEN
            RETURN false;
        END IF;
    END IF;
    IF v_watched THEN
        v_payload := ${table}_ending('c', p_namespace, p_token, v_fingerprint,
            CASE WHEN p_result_json IS NOT NULL THEN 'j' || p_result_json ELSE 'r' || p_not_stored_reason END);
        IF octet_length(v_payload) >= 8000 THEN
            v_payload := ${table}_ending('u', p_namespace, p_token, NULL, NULL);
        END IF;
        PERFORM pg_notify('${table}_events', v_payload);
    END IF;
    RETURN true;
END
$$;

-- release: deletes the caller's own live reservation. True if it did; a watched row's waiters are told.
CREATE OR REPLACE FUNCTION ${table}_release(p_namespace text, p_token text)
RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    v_watched boolean;
BEGIN
    DELETE FROM ${table}
     WHERE namespace = p_namespace AND state = 'pending' AND token = p_token AND expires_at > now()
    RETURNING watched INTO v_watched;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    IF v_watched THEN
        PERFORM pg_notify('${table}_events', ${table}_ending('r', p_namespace, p_token, NULL, NULL));
    END IF;
    RETURN true;
END
$$;

-- Recovery points of multi-step operations (LocalEffects' workflows): one row per step a holder
-- finished, written in the transaction of the step's own local effect (or right after a remote step),
-- so that a retry of the same request resumes after the last one. A point belongs to one request: its
-- namespace and its fingerprint. A run reads only the points of its own fingerprint, and its first
-- recovery point deletes, in the same fenced transaction, those of any other request that used the key
-- before it. The transaction that completes the record deletes them all; expires_at bounds what an
-- operation nobody retries leaves, for the sweep. fingerprint is NULL only on a point written before
-- version 4, which no request resumes.
CREATE TABLE IF NOT EXISTS ${table}_steps (
    namespace   text        NOT NULL,
    step        integer     NOT NULL,
    phase       text        NOT NULL,
    output      text,
    expires_at  timestamptz NOT NULL,
    fingerprint text,
    PRIMARY KEY (namespace, step)
);

CREATE INDEX IF NOT EXISTS ${table}_steps_expires_at_idx ON ${table}_steps (expires_at);

-- Started markers of workflows' remote steps (version 5): a row committed on its own, fenced and bound to
-- the request (namespace and fingerprint) like a recovery point, before the step calls out; the transaction
-- of the step's recovery point deletes it. A retry of the same request that finds one knows the step began
-- and never reached its recovery point, so its outcome is unknown, and the step's policy decides. state is
-- 'started', or 'unknown' once a retry stopped there (policy STOP): such a row answers every retry until an
-- operator resolves it, so it never expires (expires_at infinity). fence is the holder's that started it
-- (NULL without a reservation). Its own table, not rows of ${table}_steps, so that a client of version 4
-- still running beside this one never reads a marker as a finished step.
CREATE TABLE IF NOT EXISTS ${table}_step_starts (
    namespace   text        NOT NULL,
    step        integer     NOT NULL,
    phase       text        NOT NULL,
    fingerprint text        NOT NULL,
    state       text        NOT NULL,
    fence       bigint,
    started_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    -- The step's policy (IfOutcomeUnknown), the downstream key it was called with (NULL without one), and
    -- when a call its holder may still have on its way is over: the holder's lease and the step's provider
    -- deadline after the marker; no lookup or "not done" is trusted before that.
    if_unknown     text        NOT NULL,
    downstream_key text,
    settle_after   timestamptz NOT NULL,
    PRIMARY KEY (namespace, phase)
);

CREATE INDEX IF NOT EXISTS ${table}_step_starts_expires_at_idx ON ${table}_step_starts (expires_at);

COMMENT ON TABLE ${table} IS 'idempotency records, schema version 5';
