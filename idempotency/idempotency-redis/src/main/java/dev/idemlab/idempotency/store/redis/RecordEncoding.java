package dev.idemlab.idempotency.store.redis;

import dev.idemlab.idempotency.IdempotencyRecordUnreadableException;
import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Completed;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Pending;
import dev.idemlab.idempotency.spi.StoredResult;

import java.time.Duration;

/**
 * How the store keeps a record under its key: one string of schema version {@value #SCHEMA_VERSION}
 * with a fixed header, which the Lua scripts check with a prefix comparison and split with
 * {@code string.find}, so that neither they nor this client parse JSON on any call:
 * <ul>
 *   <li>{@code 2|p|<fingerprint>|<token>}: a reservation (its lease is the key's PTTL);
 *   <li>{@code 2|c|<fingerprint>|<result JSON>}: completed, with the result;
 *   <li>{@code 2|n|<fingerprint>|<reason>}: completed, the result not stored, and why.
 * </ul>
 * The token, result and reason run to the end of the string, so they may hold any character; a
 * fingerprint (the coordinator's hex SHA-256) holds no {@code |}. Schema version 1 was a JSON object
 * ({@code {"v":1,"state":..}}); such a record, or any other value, is refused as unreadable with its
 * version named, never read as absent. Only the scripts write records; this class reads them.
 *
 * <p>Stateless and thread-safe.
 */
final class RecordEncoding {

    /** The record schema the scripts write and read. */
    static final int SCHEMA_VERSION = 2;
    /** The header's state of a reservation. */
    private static final char PENDING = 'p';
    /** The header's state of a completed record with its result. */
    private static final char RESULT = 'c';
    /** The header's state of a completed record whose result was not stored. */
    private static final char NOT_STORED = 'n';

    private static final String RESULT_ARGUMENT = String.valueOf(RESULT);
    private static final String NOT_STORED_ARGUMENT = String.valueOf(NOT_STORED);
    private static final String STORE = "redis";
    private static final int HEADER = 4; // "2|p|"

    private RecordEncoding() { }

    /** Whether {@code fingerprint} can be written into a record: it holds no {@code |}. */
    static boolean fits(String fingerprint) {
        return fingerprint.indexOf('|') < 0;
    }

    /** The header state a completed record of {@code result} is written with, as complete.lua takes it. */
    static String completedState(StoredResult result) {
        return result.isStored() ? RESULT_ARGUMENT : NOT_STORED_ARGUMENT;
    }

    /**
     * Reads a record.
     *
     * @param pttl the key's remaining time in milliseconds; read for a reservation only
     * @throws IdempotencyRecordUnreadableException if {@code value} is not a record of this schema
     */
    static IdempotencyRecord decode(String value, long pttl, String namespace) {
        char state = stateOf(value);
        int bar = value.indexOf('|', HEADER);
        if (state == 0 || bar < 0) {
            throw new IdempotencyRecordUnreadableException(STORE, namespace, whyUnreadable(value), null);
        }
        String fingerprint = value.substring(HEADER, bar);
        String rest = value.substring(bar + 1);
        if (state == PENDING) {
            if (pttl < 0) {
                // Every reservation is written with PX: one without expiry would wedge the key forever.
                throw new IdempotencyRecordUnreadableException(STORE, namespace,
                        "a reservation without a lease (PTTL " + pttl + ")", null);
            }
            return new Pending(rest, fingerprint, Duration.ofMillis(pttl));
        }
        return new Completed(fingerprint, state == RESULT ? StoredResult.of(rest) : StoredResult.notStored(rest));
    }

    /** Whether {@code value} is a completed record of this schema (a notification carries one). */
    static boolean isCompleted(String value) {
        char state = stateOf(value);
        return (state == RESULT || state == NOT_STORED) && value.indexOf('|', HEADER) >= 0;
    }

    /** Why {@code value} is not a record of this schema, naming the schema version it has, if any. */
    static String whyUnreadable(String value) {
        if (value.startsWith("{")) {
            int at = value.indexOf("\"v\":");
            String version = at < 0 ? "none" : value.substring(at + 4).split("[^0-9]", 2)[0];
            return "a JSON record of schema version " + (version.isEmpty() ? "none" : version)
                    + " (an earlier encoding); this store reads schema version " + SCHEMA_VERSION
                    + ": complete or expire the old records before upgrading";
        }
        return "not a record of schema version " + SCHEMA_VERSION;
    }

    /** The header's state, or 0 when the value has no header of this schema. */
    private static char stateOf(String value) {
        if (value.length() < HEADER || value.charAt(0) != '0' + SCHEMA_VERSION || value.charAt(1) != '|'
                || value.charAt(3) != '|') {
            return 0;
        }
        char state = value.charAt(2);
        return state == PENDING || state == RESULT || state == NOT_STORED ? state : 0;
    }
}
