package dev.idemlab.idempotency.servlet.internal;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.idemlab.idempotency.Fingerprint;
import jakarta.servlet.http.HttpServletRequest;

import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
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

    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .build();

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
        if (isJson(contentType)) {
            try {
                Map<String, Object> withJson = new LinkedHashMap<>(fields);
                withJson.put("json_body", JSON.readTree(body));
                return Fingerprint.ofFields(withJson);
            } catch (IOException | IllegalArgumentException notCanonical) {
                // Not JSON after all, or JSON the canonical form cannot hold exactly: the bytes decide.
            }
        }
        fields.put("body_sha256", sha256Hex(body));
        return Fingerprint.ofFields(fields);
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
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }
}
