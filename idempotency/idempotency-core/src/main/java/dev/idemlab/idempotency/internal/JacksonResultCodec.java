package dev.idemlab.idempotency.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import dev.idemlab.idempotency.ResultCodec;

import java.io.UncheckedIOException;
import java.util.Objects;

/** {@link ResultCodec} over the library's Jackson mapper. Thread-safe. */
public final class JacksonResultCodec<T> implements ResultCodec<T> {

    private final Class<T> type;
    // Resolved once: a writer and reader bound to the type skip the per-call serializer lookup.
    private final ObjectWriter writer;
    private final ObjectReader reader;

    public JacksonResultCodec(Class<T> type) {
        this.type = Objects.requireNonNull(type, "type");
        this.writer = JacksonSupport.mapper().writerFor(type);
        this.reader = JacksonSupport.mapper().readerFor(type);
    }

    @Override
    public String encode(T result) {
        try {
            return writer.writeValueAsString(result);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("cannot encode " + type.getSimpleName() + " as JSON", e);
        }
    }

    @Override
    public T decode(String json) {
        try {
            return reader.readValue(json);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("stored JSON is not a " + type.getSimpleName(), e);
        }
    }
}
