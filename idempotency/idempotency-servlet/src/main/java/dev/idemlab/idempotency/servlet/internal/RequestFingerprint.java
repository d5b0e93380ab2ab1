package dev.idemlab.idempotency.servlet.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import dev.idemlab.idempotency.Fingerprint;
import jakarta.servlet.http.HttpServletRequest;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * What makes a request this request, per the draft's section 2.4 (Idempotency Fingerprint): its
 * method, path and query, the headers the route names, and its body. A JSON body is fingerprinted as
 * canonical JSON (RFC 8785, through {@link Fingerprint}), so member order and whitespace do not
 * matter; any other body, or JSON the canonical form cannot hold exactly (an integer beyond 2^53,
 * duplicate members), by the SHA-256 of its bytes. Stateless and thread-safe.
 */
public final class RequestFingerprint {

    /** Duplicate members are refused, so that such a body is fingerprinted by its bytes. */
    private static final JsonFactory JSON = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();
    /** What {@link #plainJson} answers for a body that is not one JSON value. */
    static final Object NOT_JSON = new Object();

    private RequestFingerprint() { }

    /** The fingerprint of {@code request}, whose body is {@code body}. */
    public static Fingerprint of(HttpServletRequest request, byte[] body, List<String> headerNames) {
        return of(request.getMethod(), request.getRequestURI(), request.getQueryString(), request.getContentType(),
                name -> Collections.list(request.getHeaders(name)), headerNames, body);
    }

    /**
     * The fingerprint of a request told by its parts, for a server that is no servlet container (the
     * WebFlux filter): both filters fingerprint one request alike, so a key's record reads the same
     * whichever filter wrote it.
     *
     * @param method the request's method
     * @param rawPath the path as sent, not decoded
     * @param rawQuery the query as sent, not decoded; {@code null} when there is none
     * @param contentType the {@code Content-Type} header's value; {@code null} when absent
     * @param headerValues every field line of a named request header, in order; empty when absent
     * @param headerNames the headers the route fingerprints
     * @param body the request's body
     */
    public static Fingerprint of(String method, String rawPath, String rawQuery, String contentType,
                                 Function<String, List<String>> headerValues, List<String> headerNames, byte[] body) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("method", method.toUpperCase(Locale.ROOT));
        fields.put("path", rawPath);
        fields.put("query", rawQuery == null ? "" : rawQuery);
        Map<String, Object> headers = new LinkedHashMap<>();
        for (String name : headerNames) {
            headers.put(name.toLowerCase(Locale.ROOT), headerValues.apply(name));
        }
        fields.put("headers", headers);
        Object json = isJson(contentType) ? plainJson(body) : NOT_JSON;
        if (json != NOT_JSON) {
            try {
                Map<String, Object> withJson = new LinkedHashMap<>(fields);
                withJson.put("json_body", json);
                return Fingerprint.ofFields(withJson);
            } catch (IllegalArgumentException notCanonical) {
                // JSON the canonical form cannot hold exactly (an integer beyond 2^53): the bytes decide.
            }
        }
        fields.put("body_sha256", sha256Hex(body));
        return Fingerprint.ofFields(fields);
    }

    /**
     * The body as plain maps, lists, strings, numbers (integers as {@code Integer}, {@code Long} or
     * {@code BigInteger}, fractions as {@code BigDecimal}), booleans and {@code null}, read token by token:
     * what the core canonicalizes without a tree. The values are those a Jackson tree of the body held,
     * so fingerprints are unchanged; reading the tree and walking it again was most of what the
     * fingerprint cost in the filter-cost flight recording. An empty body is {@code null}, as the tree's
     * missing node was.
     *
     * @return the value, or {@link #NOT_JSON} for a body that is not one JSON value, or has a duplicate member
     */
    static Object plainJson(byte[] body) {
        try (JsonParser json = JSON.createParser(body)) {
            JsonToken first = json.nextToken();
            if (first == null) {
                return null;
            }
            Object value = value(json, first);
            return json.nextToken() == null ? value : NOT_JSON;
        } catch (IOException notJson) {
            return NOT_JSON;
        }
    }

    private static Object value(JsonParser json, JsonToken token) throws IOException {
        switch (token) {
            case START_OBJECT -> {
                Map<String, Object> members = new LinkedHashMap<>();
                for (JsonToken next = json.nextToken(); next == JsonToken.FIELD_NAME; next = json.nextToken()) {
                    String name = json.currentName();
                    members.put(name, value(json, json.nextToken()));
                }
                return members;
            }
            case START_ARRAY -> {
                List<Object> items = new ArrayList<>();
                for (JsonToken next = json.nextToken(); next != JsonToken.END_ARRAY; next = json.nextToken()) {
                    items.add(value(json, next));
                }
                return items;
            }
            case VALUE_STRING -> {
                return json.getText();
            }
            case VALUE_NUMBER_INT -> {
                return json.getNumberValue();
            }
            case VALUE_NUMBER_FLOAT -> {
                return json.getDecimalValue();
            }
            case VALUE_TRUE, VALUE_FALSE -> {
                return json.getBooleanValue();
            }
            case VALUE_NULL -> {
                return null;
            }
            default -> throw new JsonParseException(json, "unexpected " + token);
        }
    }

    /** {@code application/json} or any {@code +json} type. */
    static boolean isJson(String contentType) {
        if (contentType == null) {
            return false;
        }
        String type = contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
        return type.equals("application/json") || type.endsWith("+json");
    }

    private static String sha256Hex(byte[] bytes) {
        return HexFormat.of().formatHex(ClientScope.sha256().digest(bytes));
    }
}
