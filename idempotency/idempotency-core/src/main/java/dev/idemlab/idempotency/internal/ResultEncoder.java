package dev.idemlab.idempotency.internal;

import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.spi.StoredResult;

import java.nio.charset.StandardCharsets;

/**
 * Turns an action's result into what a completed record stores. A result the codec cannot encode
 * (it throws anything, an {@code Error} of a deep object graph included, or returns {@code null}) or
 * one over the size limit was still produced by an action that ran: it becomes a "result not stored"
 * record, so the caller gets its value, replays fail clearly, and a retry never runs the action again.
 * Thread-safe.
 */
final class ResultEncoder {

    private final int limit;
    private final CoordinatorCounters counters;

    ResultEncoder(int limit, CoordinatorCounters counters) {
        this.limit = limit;
        this.counters = counters;
    }

    <T> StoredResult encode(ResultCodec<T> codec, T value) {
        String json;
        try {
            json = codec.encode(value);
        } catch (VirtualMachineError fatal) {
            if (!(fatal instanceof StackOverflowError)) {
                throw fatal; // out of memory: nothing sensible is left to do here
            }
            return notStored("the result could not be encoded: " + fatal);
        } catch (Throwable e) {
            return notStored("the result could not be encoded: " + e);
        }
        if (json == null) {
            return notStored("the codec encoded the result as null");
        }
        if (json.length() > limit / 3) { // a char is at most 3 UTF-8 bytes: count only when it may matter
            int bytes = json.getBytes(StandardCharsets.UTF_8).length;
            if (bytes > limit) {
                return notStored("the result is " + bytes + " bytes of JSON, over the limit of " + limit);
            }
        }
        return StoredResult.of(json);
    }

    private StoredResult notStored(String reason) {
        counters.resultNotStored();
        return StoredResult.notStored(reason);
    }
}
