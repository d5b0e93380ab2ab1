package dev.idemlab.idempotency.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.idemlab.idempotency.ResultCodec;

import java.io.UncheckedIOException;
import java.util.Objects;

/** {@link ResultCodec} over the library's Jackson mapper. Thread-safe. */
public final class JacksonResultCodec<T> implements ResultCodec<T> {

    private final Class<T> type;

    public JacksonResultCodec(Class<T> type) {
        this.type = Objects.requireNonNull(type, "type");
    }

    @Override
    public String encode(T result) {
        try {
            return Json.MAPPER.writeValueAsString(result);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("cannot encode " + type.getSimpleName() + " as JSON", e);
        }
    }

    @Override
    public T decode(String json) {
        try {
            return Json.MAPPER.readValue(json, type);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("stored JSON is not a " + type.getSimpleName(), e);
        }
    }
}
