package dev.idemlab.idempotency.servlet.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.idemlab.idempotency.ResultCodec;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@link StoredResponse} as the small JSON record the coordinator stores:
 * {@code {"status":201,"headers":{"Content-Type":["application/json"]},"body":"<base64>"}}. The body is
 * base64 so that any bytes, not only UTF-8 text, replay exactly. Thread-safe.
 *
 * <p>Written and read with Jackson's streaming generator and parser, token by token: building a tree
 * for every first call and reading one back for every replay was a fifth of what a replay allocated in
 * the filter-cost flight recording. The record is the same, character for character, as the tree
 * codec wrote it, so records stored before read back alike.
 */
public final class StoredResponseCodec implements ResultCodec<StoredResponse> {

    private static final JsonFactory JSON = new JsonFactory();

    @Override
    public String encode(StoredResponse response) {
        StringWriter out = new StringWriter(64 + response.bodyLength() * 4 / 3);
        try (JsonGenerator json = JSON.createGenerator(out)) {
            json.writeStartObject();
            json.writeNumberField("status", response.status());
            json.writeObjectFieldStart("headers");
            for (Map.Entry<String, List<String>> header : response.headers().entrySet()) {
                json.writeArrayFieldStart(header.getKey());
                for (String value : header.getValue()) {
                    json.writeString(value);
                }
                json.writeEndArray();
            }
            json.writeEndObject();
            json.writeStringField("body", response.bodyAsBase64());
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("a stored response could not be written as JSON", e);
        }
        return out.toString();
    }

    @Override
    public StoredResponse decode(String stored) {
        Integer status = null;
        Map<String, List<String>> headers = null;
        String body = null;
        try (JsonParser json = JSON.createParser(stored)) {
            if (json.nextToken() != JsonToken.START_OBJECT) {
                throw notAResponse();
            }
            for (JsonToken token = json.nextToken(); token == JsonToken.FIELD_NAME; token = json.nextToken()) {
                String field = json.currentName();
                JsonToken value = json.nextToken();
                switch (field) {
                    case "status" -> status = value.isNumeric() && json.getNumberType() == JsonParser.NumberType.INT
                            ? json.getIntValue() : null;
                    case "headers" -> headers = value == JsonToken.START_OBJECT ? headers(json) : null;
                    case "body" -> body = value == JsonToken.VALUE_STRING ? json.getText() : null;
                    default -> json.skipChildren();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("the stored record is not JSON", e);
        }
        if (status == null || headers == null || body == null) {
            throw notAResponse();
        }
        return new StoredResponse(status, headers, Base64.getDecoder().decode(body));
    }

    /** The headers object, the parser on its start: each name's values, as text. */
    private static Map<String, List<String>> headers(JsonParser json) throws IOException {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (JsonToken token = json.nextToken(); token == JsonToken.FIELD_NAME; token = json.nextToken()) {
            String name = json.currentName();
            List<String> values = new ArrayList<>(1);
            if (json.nextToken() == JsonToken.START_ARRAY) {
                for (JsonToken item = json.nextToken(); item != JsonToken.END_ARRAY; item = json.nextToken()) {
                    values.add(item.isScalarValue() ? json.getValueAsString(json.getText()) : "");
                    json.skipChildren();
                }
            } else {
                json.skipChildren();
            }
            headers.put(name, values);
        }
        return headers;
    }

    private static IllegalArgumentException notAResponse() {
        return new IllegalArgumentException("the stored record is not a response: status, headers and body expected");
    }
}
