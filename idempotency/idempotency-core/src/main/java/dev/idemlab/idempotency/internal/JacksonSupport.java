package dev.idemlab.idempotency.internal;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything in the core that needs Jackson, kept in one class so that the core loads and runs
 * without Jackson on the class path: nothing reaches this class unless a caller asked for a
 * Jackson feature ({@code ResultCodec.json}, the fingerprint of a bean or of a JSON tree).
 *
 * <p>The mapper is private: reconfiguring it would change every fingerprint and stored result.
 * Thread-safe.
 */
public final class JacksonSupport {

    /** Floats are read as BigDecimal so that the canonical number form sees the digits that were sent. */
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    private JacksonSupport() { }

    static ObjectMapper mapper() {
        return MAPPER;
    }

    /** A bean, record or JSON tree as plain maps, lists, strings, numbers and booleans. */
    public static Object toPlain(Object value) {
        JsonNode tree = value instanceof JsonNode node ? node : MAPPER.valueToTree(value);
        return plain(tree);
    }

    private static Object plain(JsonNode node) {
        switch (node.getNodeType()) {
            case OBJECT -> {
                Map<String, Object> members = new LinkedHashMap<>();
                for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> member = it.next();
                    members.put(member.getKey(), plain(member.getValue()));
                }
                return members;
            }
            case ARRAY -> {
                List<Object> items = new ArrayList<>(node.size());
                node.forEach(item -> items.add(plain(item)));
                return items;
            }
            case STRING -> {
                return node.textValue();
            }
            case NUMBER -> {
                return node.numberValue();
            }
            case BOOLEAN -> {
                return node.booleanValue();
            }
            case NULL, MISSING -> {
                return null;
            }
            default -> throw new IllegalArgumentException("cannot fingerprint a JSON " + node.getNodeType());
        }
    }
}
