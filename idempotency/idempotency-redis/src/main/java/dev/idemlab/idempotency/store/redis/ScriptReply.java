package dev.idemlab.idempotency.store.redis;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idemlab.idempotency.IdempotencyRecordUnreadableException;
import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Completed;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Pending;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.StoredResult;

import java.time.Duration;
import java.util.List;

/**
 * Reads what a {@link LuaScript} answers: a status code first (as the scripts document them), then,
 * for {@link #FOUND}, the record's JSON and its remaining time in milliseconds. The record JSON is
 * written only by the scripts: {@code {"state":"pending","token":..,"fingerprint":..}} or
 * {@code {"state":"completed","fingerprint":..,"result":..}} with {@code notStoredReason} in place of
 * {@code result} when the result was not stored.
 *
 * <p>Anything else is an unparseable reply and fails as an {@link IdempotencyStoreException}.
 * Stateless and thread-safe.
 */
final class ScriptReply {

    /** Reads the scripts' record JSON; never reconfigured. */
    private static final ObjectMapper RECORDS = new ObjectMapper();

    /** The token refused: not its reservation (complete, release). */
    static final long NOT_HELD = 0;
    /** Done: acquired, completed, released or stored. */
    static final long DONE = 1;
    /** A live record is there; it and its PTTL follow. */
    static final long FOUND = 2;
    /** No live record (lookup). */
    static final long ABSENT = 3;
    /** A value this store cannot read is under the key; the reason follows. */
    static final long UNREADABLE = 4;
    /** The record schema the scripts write and read. */
    static final int SCHEMA_VERSION = 1;

    /** The name of the completed record's field for the stored result's JSON. */
    static final String RESULT = "result";
    /** The name of the completed record's field for the reason the result was not stored. */
    static final String NOT_STORED_REASON = "notStoredReason";

    private static final String STORE = "redis";

    private ScriptReply() { }

    /** The status code at the head of the reply. */
    static long status(List<Object> reply, String namespace) {
        if (reply == null || reply.isEmpty() || !(reply.get(0) instanceof Long status)
                || status < NOT_HELD || status > UNREADABLE) {
            throw unparseable(namespace, "no status code in " + reply, null);
        }
        return status;
    }

    /** Throws the unreadable-record refusal an {@link #UNREADABLE} reply carries. */
    static IdempotencyRecordUnreadableException unreadable(List<Object> reply, String namespace) {
        String why = reply.size() > 1 && reply.get(1) instanceof String text ? text : "unreadable";
        return new IdempotencyRecordUnreadableException(STORE, namespace, why, null);
    }

    /** The fencing number of a {@link #DONE} reserve reply. */
    static long fence(List<Object> reply, String namespace) {
        if (reply.size() != 2 || !(reply.get(1) instanceof Long fence)) {
            throw unparseable(namespace, "an acquiring reserve needs a fencing number, got " + reply, null);
        }
        return fence;
    }

    /** The record of a {@link #FOUND} reply. */
    static IdempotencyRecord record(List<Object> reply, String namespace) {
        if (reply.size() != 3 || !(reply.get(1) instanceof String json) || !(reply.get(2) instanceof Long pttl)) {
            throw unparseable(namespace, "a FOUND reply needs a record and its PTTL, got " + reply, null);
        }
        JsonNode record;
        try {
            record = RECORDS.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IdempotencyRecordUnreadableException(STORE, namespace, "the record is not JSON", e);
        }
        if (record == null || !record.isObject()) {
            throw new IdempotencyRecordUnreadableException(STORE, namespace, "the record is not a JSON object", null);
        }
        return parse(record, pttl, namespace);
    }

    private static IdempotencyRecord parse(JsonNode record, long pttl, String namespace) {
        JsonNode version = record.get("v");
        if (version == null || !version.isInt() || version.intValue() != SCHEMA_VERSION) {
            throw new IdempotencyRecordUnreadableException(STORE, namespace, "schema version " + version
                    + ", this store reads " + SCHEMA_VERSION, null);
        }
        String state = text(record, "state", namespace);
        String fingerprint = text(record, "fingerprint", namespace);
        if ("pending".equals(state)) {
            if (pttl < 0) {
                // Every reservation is written with PX: one without expiry would wedge the key forever.
                throw new IdempotencyRecordUnreadableException(STORE, namespace,
                        "a reservation without a lease (PTTL " + pttl + ")", null);
            }
            return new Pending(text(record, "token", namespace), fingerprint, Duration.ofMillis(pttl));
        }
        if ("completed".equals(state)) {
            StoredResult result = record.hasNonNull(RESULT)
                    ? StoredResult.of(text(record, RESULT, namespace))
                    : StoredResult.notStored(text(record, NOT_STORED_REASON, namespace));
            return new Completed(fingerprint, result);
        }
        throw new IdempotencyRecordUnreadableException(STORE, namespace, "unknown record state '" + state + "'", null);
    }

    private static String text(JsonNode record, String field, String namespace) {
        JsonNode value = record.get(field);
        if (value == null || !value.isTextual()) {
            throw new IdempotencyRecordUnreadableException(STORE, namespace,
                    "the record has no text field '" + field + "'", null);
        }
        return value.asText();
    }

    private static IdempotencyStoreException unparseable(String namespace, String what, Throwable cause) {
        return new IdempotencyStoreException(STORE, namespace, "unparseable reply: " + what, cause);
    }
}
