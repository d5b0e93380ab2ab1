-- Idempotency store schema, version 2.
-- Applied by PostgresIdempotencyStore when it starts, unless the table exists with another version,
-- which the store refuses to use (see SchemaScript). Every statement is idempotent, so applying it
-- again (or from several clients at once, under an advisory lock) changes nothing.
-- ${table} is replaced by the configured table name, a checked plain identifier.

-- One row per namespace (prefix{operation:key}). A row whose expires_at has passed, by the server's
-- now(), counts as absent: reserve takes it over, a late complete fills it, and sweepExpired deletes it.
-- state is 'pending' (token set; the lease ends at expires_at) or 'completed' (exactly one of
-- result_json and not_stored_reason set; the ttl ends at expires_at). fence is the reservation's
-- fencing number, from one sequence, so it grows with every reservation of every key. state is not
-- constrained here on purpose: a reader refuses a row it cannot understand, never treats it as absent.
CREATE TABLE IF NOT EXISTS ${table} (
    namespace         text        PRIMARY KEY,
    state             text        NOT NULL,
    token             text,
    fingerprint       text        NOT NULL,
    result_json       text,
    not_stored_reason text,
    expires_at        timestamptz NOT NULL,
    fence             bigint
);

CREATE SEQUENCE IF NOT EXISTS ${table}_fence_seq;

-- The sweep looks for expired rows only.
CREATE INDEX IF NOT EXISTS ${table}_expires_at_idx ON ${table} (expires_at);

COMMENT ON TABLE ${table} IS 'idempotency records, schema version 2';
