package dev.idemlab.idempotency.store.redis;

import dev.idemlab.idempotency.IdempotencyRecordUnreadableException;
import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;

import java.util.List;

/**
 * Reads what a {@link LuaScript} answers: a status code first (as the scripts document them), then,
 * for {@link #FOUND}, the record ({@link RecordEncoding}, as its bytes: see {@link ScriptOutput}) and,
 * for a reservation, its remaining time in milliseconds; for {@link #UNREADABLE}, the value that is not
 * a record, if it is a string.
 *
 * <p>Anything else is an unparseable reply and fails as an {@link IdempotencyStoreException}.
 * Stateless and thread-safe.
 */
final class ScriptReply {

    /** The token refused: not its reservation (complete, release). */
    static final long NOT_HELD = 0;
    /** Done: acquired, completed, released or stored. */
    static final long DONE = 1;
    /** A live record is there; it follows, and for a reservation its PTTL. */
    static final long FOUND = 2;
    /** No live record (lookup). */
    static final long ABSENT = 3;
    /** A value this store cannot read is under the key; it follows when it is a string. */
    static final long UNREADABLE = 4;

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

    /** The unreadable-record refusal an {@link #UNREADABLE} reply carries. */
    static IdempotencyRecordUnreadableException unreadable(List<Object> reply, String namespace) {
        String why = reply.size() > 1 && reply.get(1) instanceof byte[] value
                ? RecordEncoding.whyUnreadable(value) : "not a string value (a key of another type)";
        return new IdempotencyRecordUnreadableException(STORE, namespace, why, null);
    }

    /** The fencing number of a {@link #DONE} reserve reply. */
    static long fence(List<Object> reply, String namespace) {
        if (reply.size() != 2 || !(reply.get(1) instanceof Long fence)) {
            throw unparseable(namespace, "an acquiring reserve needs a fencing number, got " + reply, null);
        }
        return fence;
    }

    /** The record of a {@link #FOUND} reply: {@code {2, record}}, or {@code {2, record, pttl}}. */
    static IdempotencyRecord record(List<Object> reply, String namespace) {
        int size = reply.size();
        if (size < 2 || size > 3 || !(reply.get(1) instanceof byte[] value)
                || (size == 3 && !(reply.get(2) instanceof Long))) {
            throw unparseable(namespace, "a FOUND reply needs a record and, for a reservation, its PTTL, got "
                    + reply, null);
        }
        return RecordEncoding.decode(value, size == 3 ? (Long) reply.get(2) : -1, namespace);
    }

    private static IdempotencyStoreException unparseable(String namespace, String what, Throwable cause) {
        return new IdempotencyStoreException(STORE, namespace, "unparseable reply: " + what, cause);
    }
}
