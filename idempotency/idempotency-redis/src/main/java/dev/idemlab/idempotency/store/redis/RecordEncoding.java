package dev.idemlab.idempotency.store.redis;

import dev.idemlab.idempotency.IdempotencyRecordUnreadableException;
import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Completed;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Pending;
import dev.idemlab.idempotency.spi.StoredResult;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;

/**
 * How the store keeps a record under its key: one string of schema version {@value #SCHEMA_VERSION}
 * with a fixed header, which the Lua scripts check with a prefix comparison and split at fixed offsets
 * and with {@code string.find}, so that neither they nor this client parse JSON on any call:
 * <ul>
 *   <li>{@code 3|p|<fingerprint><fence>|<token>}: a reservation (its lease is the key's PTTL; the
 *       fence it was given, in decimal, is what a retry by the same token must exceed);
 *   <li>{@code 3|c|<fingerprint><result JSON>}: completed, with the result;
 *   <li>{@code 3|n|<fingerprint><reason>}: completed, the result not stored, and why.
 * </ul>
 * The fingerprint is the request's SHA-256 as its 32 bytes, at bytes 5 to 36 (the coordinator's
 * 64 hex characters, halved, with nothing lost): a completed record of a 211-byte result is then 247
 * bytes, which Redis keeps in a 256-byte allocation, where the hex form and a bar (69 bytes of header)
 * pushed it into a 320-byte one. The full fingerprint is kept so that a key reused for another request
 * is told apart by all 256 bits, as before, and the key-reuse error shows both in hex. The token,
 * result and reason run to the end of the string, so they may hold any character.
 *
 * <p>Schema version 2, written by earlier releases, is still read: {@code 2|p|<hex>|<token>},
 * {@code 2|c|<hex>|<result>}, {@code 2|n|<hex>|<reason>}; the scripts find its records as they are
 * (a version 2 reservation is never this client's). Version 1 was a JSON object
 * ({@code {"v":1,"state":..}}); such a record, one of a later version, or any other value, is refused
 * as unreadable with its version named, never read as absent. Only the scripts write records; this
 * class reads them, and builds the pieces the scripts write (the reservation's head, the completed
 * record), which the scripts would spend more server time building themselves.
 *
 * <p>Stateless and thread-safe.
 */
final class RecordEncoding {

    /** The record schema the scripts write. */
    static final int SCHEMA_VERSION = 3;
    /** The earlier schema, with the fingerprint in hex, which is still read. */
    static final int EARLIER_VERSION = 2;
    /** The fingerprint's length in a record of this schema: a SHA-256. */
    static final int FINGERPRINT_BYTES = 32;

    /** The header's state of a reservation. */
    private static final byte PENDING = 'p';
    /** The header's state of a completed record with its result. */
    private static final byte RESULT = 'c';
    /** The header's state of a completed record whose result was not stored. */
    private static final byte NOT_STORED = 'n';

    private static final byte[] PENDING_HEADER = {'3', '|', PENDING, '|'};
    private static final byte[] RESULT_HEADER = {'3', '|', RESULT, '|'};
    private static final byte[] NOT_STORED_HEADER = {'3', '|', NOT_STORED, '|'};
    private static final byte[] EMPTY = {};
    private static final String STORE = "redis";
    private static final int HEADER = 4; // "3|p|"
    private static final int FINGERPRINT_END = HEADER + FINGERPRINT_BYTES;
    private static final HexFormat HEX = HexFormat.of();

    private RecordEncoding() { }

    /**
     * The fingerprint as a record holds it: its 32 bytes.
     *
     * @throws IllegalArgumentException unless {@code fingerprint} is a SHA-256 in 64 lower-case hex
     *     characters, as the coordinator writes it
     */
    static byte[] fingerprintBytes(String fingerprint) {
        if (fingerprint.length() != 2 * FINGERPRINT_BYTES || !isLowerHex(fingerprint)) {
            throw new IllegalArgumentException("the redis store keeps a fingerprint as the 32 bytes of a SHA-256, "
                    + "so it takes 64 lower-case hex characters (the coordinator's): " + fingerprint);
        }
        return HEX.parseHex(fingerprint);
    }

    private static boolean isLowerHex(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if ((c < '0' || c > '9') && (c < 'a' || c > 'f')) {
                return false;
            }
        }
        return true;
    }

    /**
     * What reserve.lua writes a reservation with before its fence and token: {@code 3|p|} and the
     * fingerprint's 32 bytes. Built here, not in the script (see reserve.lua).
     */
    static byte[] reservationHead(byte[] fingerprint) {
        return join(PENDING_HEADER, fingerprint, EMPTY);
    }

    /**
     * The completed record of {@code result} with {@code fingerprint}, as complete.lua writes it: built
     * here, not in the script (see complete.lua), which puts in the reservation's own fingerprint should
     * it differ.
     */
    static byte[] completed(byte[] fingerprint, StoredResult result) {
        return result.isStored() ? join(RESULT_HEADER, fingerprint, result.json().getBytes(StandardCharsets.UTF_8))
                : join(NOT_STORED_HEADER, fingerprint, result.notStoredReason().getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] join(byte[] header, byte[] fingerprint, byte[] rest) {
        byte[] record = new byte[header.length + fingerprint.length + rest.length];
        System.arraycopy(header, 0, record, 0, header.length);
        System.arraycopy(fingerprint, 0, record, header.length, fingerprint.length);
        System.arraycopy(rest, 0, record, header.length + fingerprint.length, rest.length);
        return record;
    }

    /**
     * Reads a record of this schema or of the earlier one.
     *
     * @param pttl the key's remaining time in milliseconds; read for a reservation only
     * @throws IdempotencyRecordUnreadableException if {@code value} is not such a record
     */
    static IdempotencyRecord decode(byte[] value, long pttl, String namespace) {
        int version = versionOf(value);
        if (version == EARLIER_VERSION) {
            return decodeEarlier(new String(value, StandardCharsets.UTF_8), pttl, namespace);
        }
        byte state = version == SCHEMA_VERSION && value.length >= FINGERPRINT_END ? value[2] : 0;
        if (state != PENDING && state != RESULT && state != NOT_STORED) {
            throw unreadable(namespace, whyUnreadable(value));
        }
        String fingerprint = HEX.formatHex(value, HEADER, FINGERPRINT_END);
        if (state == PENDING) {
            int bar = indexOfBar(value, FINGERPRINT_END);
            if (bar < 0) {
                throw unreadable(namespace, "a reservation of schema version " + SCHEMA_VERSION
                        + " without the bar that ends its fence");
            }
            return pending(utf8(value, bar + 1), fingerprint, pttl, namespace);
        }
        String rest = utf8(value, FINGERPRINT_END);
        return new Completed(fingerprint, state == RESULT ? StoredResult.of(rest) : StoredResult.notStored(rest));
    }

    /** A record of schema version 2: {@code 2|<state>|<hex fingerprint>|<rest>}. */
    private static IdempotencyRecord decodeEarlier(String value, long pttl, String namespace) {
        char state = value.charAt(2);
        int bar = value.indexOf('|', HEADER);
        if ((state != PENDING && state != RESULT && state != NOT_STORED) || bar < 0) {
            throw unreadable(namespace, "not a record of schema version " + EARLIER_VERSION
                    + " although it starts like one (" + describeHead(value) + ")");
        }
        String fingerprint = value.substring(HEADER, bar);
        String rest = value.substring(bar + 1);
        if (state == PENDING) {
            return pending(rest, fingerprint, pttl, namespace);
        }
        return new Completed(fingerprint, state == RESULT ? StoredResult.of(rest) : StoredResult.notStored(rest));
    }

    private static Pending pending(String token, String fingerprint, long pttl, String namespace) {
        if (pttl < 0) {
            // Every reservation is written with PX: one without expiry would wedge the key forever.
            throw unreadable(namespace, "a reservation without a lease (PTTL " + pttl + ")");
        }
        return new Pending(token, fingerprint, Duration.ofMillis(pttl));
    }

    /** Whether {@code value} is a completed record of this schema (a notification carries one). */
    static boolean isCompleted(byte[] value) {
        return versionOf(value) == SCHEMA_VERSION && value.length >= FINGERPRINT_END
                && (value[2] == RESULT || value[2] == NOT_STORED);
    }

    /** Why {@code value} is not a record this store reads, naming the schema version it has, if any. */
    static String whyUnreadable(byte[] value) {
        String text = new String(value, 0, Math.min(value.length, 200), StandardCharsets.UTF_8);
        if (text.startsWith("{")) {
            int at = text.indexOf("\"v\":");
            String version = at < 0 ? "none" : text.substring(at + 4).split("[^0-9]", 2)[0];
            return "a JSON record of schema version " + (version.isEmpty() ? "none" : version)
                    + " (an earlier encoding); this store reads schema versions " + SCHEMA_VERSION + " and "
                    + EARLIER_VERSION + ": complete or expire the old records before upgrading";
        }
        int version = versionOf(value);
        if (version == SCHEMA_VERSION) {
            return "not a record of schema version " + SCHEMA_VERSION + " although it starts like one ("
                    + describeHead(text) + ", " + value.length + " bytes)";
        }
        if (version > 0) {
            return "a record of schema version " + version + " (" + describeHead(text) + "); this store reads "
                    + "schema versions " + SCHEMA_VERSION + " and " + EARLIER_VERSION
                    + ": a later release of the store wrote it";
        }
        return "not a record of schema version " + SCHEMA_VERSION + " or " + EARLIER_VERSION;
    }

    /** The record's version when it starts like a record ({@code <digit>|<state>|}), else 0. */
    private static int versionOf(byte[] value) {
        if (value.length < HEADER || value[0] < '1' || value[0] > '9' || value[1] != '|' || value[3] != '|') {
            return 0;
        }
        return value[0] - '0';
    }

    private static String describeHead(String value) {
        return "header '" + value.substring(0, Math.min(HEADER, value.length())) + "'";
    }

    private static int indexOfBar(byte[] value, int from) {
        for (int i = from; i < value.length; i++) {
            if (value[i] == '|') {
                return i;
            }
        }
        return -1;
    }

    private static String utf8(byte[] value, int from) {
        return new String(value, from, value.length - from, StandardCharsets.UTF_8);
    }

    private static IdempotencyRecordUnreadableException unreadable(String namespace, String why) {
        return new IdempotencyRecordUnreadableException(STORE, namespace, why, null);
    }
}
