package dev.idemlab.idempotency.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import dev.idemlab.idempotency.ResultCodec;

import java.io.UncheckedIOException;
import java.util.Objects;

/**
 * {@link ResultCodec} over the library's Jackson mapper. A {@code String} result that needs no
 * escaping is written and read without a Jackson generator or parser: the JSON is the same text
 * Jackson writes (a quote, the characters, a quote), and anything else goes through Jackson.
 * Thread-safe.
 */
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
        if (result instanceof String plain && type == String.class && !needsEscaping(plain, 0, plain.length())) {
            return '"' + plain + '"';
        }
        try {
            return writer.writeValueAsString(result);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("cannot encode " + type.getSimpleName() + " as JSON", e);
        }
    }

    @Override
    public T decode(String json) {
        int last = json.length() - 1;
        if (type == String.class && last > 0 && json.charAt(0) == '"' && json.charAt(last) == '"'
                && !needsEscaping(json, 1, last)) {
            return type.cast(json.substring(1, last));
        }
        try {
            return reader.readValue(json);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("stored JSON is not a " + type.getSimpleName(), e);
        }
    }

    /** Whether {@code text[from, to)} holds a character JSON escapes in a string: a control, a quote, a backslash. */
    private static boolean needsEscaping(String text, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c == '"' || c == '\\') {
                return true;
            }
        }
        return false;
    }
}
