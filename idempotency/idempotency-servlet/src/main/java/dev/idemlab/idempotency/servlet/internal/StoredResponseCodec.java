package dev.idemlab.idempotency.servlet.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idemlab.idempotency.ResultCodec;

import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@link StoredResponse} as the small JSON record the coordinator stores:
 * {@code {"status":201,"headers":{"Content-Type":["application/json"]},"body":"<base64>"}}. The body is
 * base64 so that any bytes, not only UTF-8 text, replay exactly. Thread-safe.
 */
public final class StoredResponseCodec implements ResultCodec<StoredResponse> {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    @Override
    public String encode(StoredResponse response) {
        ObjectNode json = MAPPER.createObjectNode();
        json.put("status", response.status());
        ObjectNode headers = json.putObject("headers");
        response.headers().forEach((name, values) -> {
            ArrayNode array = headers.putArray(name);
            values.forEach(array::add);
        });
        json.put("body", Base64.getEncoder().encodeToString(response.body()));
        try {
            return MAPPER.writeValueAsString(json);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("a stored response could not be written as JSON", e);
        }
    }

    @Override
    public StoredResponse decode(String stored) {
        JsonNode json;
        try {
            json = MAPPER.readTree(stored);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("the stored record is not JSON", e);
        }
        if (json == null || !json.path("status").canConvertToInt() || !json.path("headers").isObject()
                || !json.path("body").isTextual()) {
            throw new IllegalArgumentException("the stored record is not a response: status, headers and body expected");
        }
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> fields = json.get("headers").fields(); fields.hasNext(); ) {
            Map.Entry<String, JsonNode> field = fields.next();
            List<String> values = new ArrayList<>();
            field.getValue().forEach(value -> values.add(value.asText()));
            headers.put(field.getKey(), values);
        }
        return new StoredResponse(json.get("status").asInt(), headers, Base64.getDecoder().decode(json.get("body").asText()));
    }
}
