package dev.idemlab.provider.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.idemlab.provider.ChargeRequest;

import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Set;

/**
 * The rules a request body must follow, each failure stated as the rule it broke. Thread-safe.
 */
final class RequestRules {

    static final int MAX_KEY_LENGTH = 255;

    private static final Set<String> CHARGE_FIELDS = Set.of(WireFormat.ORDER_ID, WireFormat.AMOUNT,
            WireFormat.IDEMPOTENCY_KEY, WireFormat.FENCE);
    private static final Set<String> FAULT_FIELDS = Set.of(WireFormat.FAIL_NEXT, WireFormat.CHARGE_THEN_TIME_OUT_NEXT);

    /** A fault order: how many of the next calls meet which fault. */
    record FaultOrder(String field, int count) { }

    private RequestRules() { }

    /**
     * Reads a charge request from its body and its {@code Idempotency-Key} header.
     *
     * @param body the request body
     * @param keyHeader the header's value, or {@code null} when absent
     * @throws InvalidRequestException stating the rule the request broke
     */
    static ChargeRequest chargeRequest(byte[] body, String keyHeader) {
        JsonNode json = object(body);
        onlyFields(json, CHARGE_FIELDS, "a charge has order_id, amount, idempotency_key and fence");
        JsonNode orderId = json.get(WireFormat.ORDER_ID);
        if (orderId == null || !orderId.isTextual() || orderId.asText().isEmpty()) {
            throw new InvalidRequestException("order_id must be a non-empty string");
        }
        JsonNode amount = json.get(WireFormat.AMOUNT);
        if (amount == null || !amount.isIntegralNumber() || !amount.canConvertToLong() || amount.asLong() <= 0) {
            throw new InvalidRequestException("amount must be a positive integer in minor units");
        }
        JsonNode fence = json.get(WireFormat.FENCE);
        if (fence != null && !fence.isNull() && !(fence.isIntegralNumber() && fence.canConvertToLong())) {
            throw new InvalidRequestException("fence must be an integer");
        }
        String key = key(json.get(WireFormat.IDEMPOTENCY_KEY), keyHeader);
        return new ChargeRequest(orderId.asText(), amount.asLong(), key,
                fence == null || fence.isNull() ? null : fence.asLong());
    }

    /**
     * The {@code idempotency_key} of a lookup's query string ({@code idempotency_key=K}, K URL-encoded).
     *
     * @param query the raw query string, or {@code null} when there is none
     * @throws InvalidRequestException when the query names no key, names it twice, the key is longer than
     *     {@value #MAX_KEY_LENGTH} characters, or it is not URL-encoded (a {@code %} not followed by two hex digits)
     */
    static String idempotencyKeyQuery(String query) {
        String key = null;
        for (String pair : query == null ? new String[0] : query.split("&")) {
            int equals = pair.indexOf('=');
            String name = equals < 0 ? pair : pair.substring(0, equals);
            if (!name.equals(WireFormat.IDEMPOTENCY_KEY)) {
                continue;
            }
            if (key != null) {
                throw new InvalidRequestException("a lookup names one idempotency_key");
            }
            key = equals < 0 ? "" : decoded(pair.substring(equals + 1));
        }
        if (key == null || key.isEmpty() || key.length() > MAX_KEY_LENGTH) {
            throw new InvalidRequestException("a lookup of charges is GET /charges?idempotency_key=K, K 1 to "
                    + MAX_KEY_LENGTH + " characters");
        }
        return key;
    }

    /** A query value, URL-decoded; a malformed escape is the client's error, not the server's. */
    private static String decoded(String value) {
        try {
            return URLDecoder.decode(value, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new InvalidRequestException("the idempotency_key of a lookup is URL-encoded: each % is "
                    + "followed by two hex digits (%25 for a % itself)");
        }
    }

    /**
     * Reads a fault order: exactly one of {@code fail_next} and {@code charge_then_time_out_next}.
     *
     * @throws InvalidRequestException stating the rule the request broke
     */
    static FaultOrder faultOrder(byte[] body) {
        JsonNode json = object(body);
        onlyFields(json, FAULT_FIELDS, "a fault order has fail_next or charge_then_time_out_next");
        if (json.size() != 1) {
            throw new InvalidRequestException("a fault order has exactly one of fail_next and charge_then_time_out_next");
        }
        String field = json.fieldNames().next();
        JsonNode count = json.get(field);
        if (!count.isIntegralNumber() || !count.canConvertToInt() || count.asInt() < 0) {
            throw new InvalidRequestException(field + " must be a non-negative integer");
        }
        return new FaultOrder(field, count.asInt());
    }

    private static JsonNode object(byte[] body) {
        JsonNode json;
        try {
            json = WireFormat.parse(body);
        } catch (JsonProcessingException e) {
            throw new InvalidRequestException("the body must be one JSON object: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new InvalidRequestException("the body must be one JSON object");
        }
        if (json == null || !json.isObject()) {
            throw new InvalidRequestException("the body must be one JSON object");
        }
        return json;
    }

    private static void onlyFields(JsonNode json, Set<String> allowed, String rule) {
        for (Iterator<String> names = json.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!allowed.contains(name)) {
                throw new InvalidRequestException("unknown field '" + name + "': " + rule);
            }
        }
    }

    private static String key(JsonNode field, String header) {
        String fromBody = null;
        if (field != null && !field.isNull()) {
            if (!field.isTextual()) {
                throw new InvalidRequestException("idempotency_key must be a string");
            }
            fromBody = checkedKey(field.asText(), "idempotency_key");
        }
        String fromHeader = header == null ? null : checkedKey(headerKey(header), "the Idempotency-Key header");
        if (fromBody != null && fromHeader != null && !fromBody.equals(fromHeader)) {
            throw new InvalidRequestException("the Idempotency-Key header and idempotency_key must agree when both are sent");
        }
        return fromBody != null ? fromBody : fromHeader;
    }

    private static String checkedKey(String key, String where) {
        if (key.isEmpty() || key.length() > MAX_KEY_LENGTH) {
            throw new InvalidRequestException(where + " must be 1 to " + MAX_KEY_LENGTH + " characters");
        }
        return key;
    }

    /**
     * The header's key: a structured-field string ({@code "abc"}, as the Idempotency-Key draft
     * sends it) or, as most providers accept, the bare value.
     */
    private static String headerKey(String header) {
        String value = header.strip();
        if (!value.startsWith("\"")) {
            return value;
        }
        StringBuilder key = new StringBuilder();
        for (int i = 1; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"') {
                if (i != value.length() - 1) {
                    break;
                }
                return key.toString();
            }
            if (c == '\\' && i + 1 < value.length() && (value.charAt(i + 1) == '"' || value.charAt(i + 1) == '\\')) {
                c = value.charAt(++i);
            } else if (c == '\\' || c < 0x20 || c > 0x7e) {
                break;
            }
            key.append(c);
        }
        throw new InvalidRequestException("the Idempotency-Key header must be a quoted string or a bare value");
    }
}
