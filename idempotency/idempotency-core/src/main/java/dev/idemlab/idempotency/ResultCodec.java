package dev.idemlab.idempotency;

import dev.idemlab.idempotency.internal.JacksonResultCodec;
import dev.idemlab.idempotency.internal.OptionalDependencies;

/**
 * Turns an action's result into the JSON a completed record stores, and back on replay.
 * Implementations must be thread-safe.
 *
 * @param <T> the action's result type
 */
public interface ResultCodec<T> {

    /**
     * Encodes a result.
     *
     * @throws RuntimeException if the result cannot be encoded; the coordinator then stores a
     *     "result not stored" record instead of failing the call
     */
    String encode(T result);

    /**
     * Decodes a stored result.
     *
     * @throws RuntimeException if the JSON does not fit the type; the replay then fails with
     *     {@link IdempotentReplayUnavailableException}
     */
    T decode(String json);

    /**
     * A Jackson codec for records, beans, strings, numbers and collections of them.
     *
     * <p>Needs {@code com.fasterxml.jackson.core:jackson-databind} on the class path: the core
     * declares it optional, so a service that uses this method adds it.
     *
     * @throws IllegalStateException if Jackson is not on the class path
     */
    static <T> ResultCodec<T> json(Class<T> type) {
        if (!OptionalDependencies.jackson()) {
            throw new IllegalStateException("ResultCodec.json needs jackson-databind on the class path; "
                    + "add it, or implement ResultCodec for " + type.getName());
        }
        return new JacksonResultCodec<>(type);
    }
}
