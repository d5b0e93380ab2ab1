package dev.idemlab.provider.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.ChargeRequest;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The provider's JSON on the wire, both ways, in one place: charges, the ledger, charge requests
 * and fault orders. Field names are snake_case. Thread-safe.
 */
final class WireFormat {

    static final String JSON = "application/json";
    static final String PROBLEM_JSON = "application/problem+json";

    static final String ID = "id";
    static final String ORDER_ID = "order_id";
    static final String AMOUNT = "amount";
    static final String IDEMPOTENCY_KEY = "idempotency_key";
    static final String FENCE = "fence";
    static final String FAIL_NEXT = "fail_next";
    static final String CHARGE_THEN_TIME_OUT_NEXT = "charge_then_time_out_next";

    private static final JsonMapper MAPPER = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private WireFormat() { }

    static ObjectNode object() {
        return MAPPER.createObjectNode();
    }

    static JsonNode parse(String json) throws JsonProcessingException {
        return MAPPER.readTree(json);
    }

    static JsonNode parse(byte[] json) throws IOException {
        return MAPPER.readTree(json);
    }

    static String write(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree could not be written", e);
        }
    }

    static ObjectNode chargeNode(Charge charge) {
        ObjectNode node = object();
        node.put(ID, charge.id());
        node.put(ORDER_ID, charge.orderId());
        node.put(AMOUNT, charge.amount());
        node.put(IDEMPOTENCY_KEY, charge.idempotencyKey());
        return node;
    }

    static String charge(Charge charge) {
        return write(chargeNode(charge));
    }

    static String ledger(List<Charge> ledger) {
        ArrayNode array = MAPPER.createArrayNode();
        ledger.forEach(charge -> array.add(chargeNode(charge)));
        return write(array);
    }

    static String chargeRequest(ChargeRequest request) {
        ObjectNode node = object();
        node.put(ORDER_ID, request.orderId());
        node.put(AMOUNT, request.amount());
        if (request.idempotencyKey() != null) {
            node.put(IDEMPOTENCY_KEY, request.idempotencyKey());
        }
        if (request.fence() != null) {
            node.put(FENCE, request.fence());
        }
        return write(node);
    }

    static String faultOrder(String field, int count) {
        return write(object().put(field, count));
    }

    /**
     * Reads a charge the service wrote.
     *
     * @throws IllegalArgumentException when the node is not a charge
     */
    static Charge readCharge(JsonNode node) {
        if (node == null || !node.isObject() || !node.path(ID).isTextual() || !node.path(ORDER_ID).isTextual()
                || !node.path(AMOUNT).canConvertToExactIntegral()) {
            throw new IllegalArgumentException("not a charge: " + node);
        }
        JsonNode key = node.path(IDEMPOTENCY_KEY);
        return new Charge(node.get(ID).asText(), node.get(ORDER_ID).asText(), node.get(AMOUNT).asLong(),
                key.isTextual() ? key.asText() : null);
    }

    /**
     * Reads a ledger the service wrote.
     *
     * @throws IllegalArgumentException when the node is not an array of charges
     */
    static List<Charge> readLedger(JsonNode node) {
        if (node == null || !node.isArray()) {
            throw new IllegalArgumentException("not a ledger: " + node);
        }
        List<Charge> ledger = new ArrayList<>(node.size());
        node.forEach(charge -> ledger.add(readCharge(charge)));
        return List.copyOf(ledger);
    }
}
