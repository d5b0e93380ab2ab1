package dev.idemlab.idempotency.servlet.internal;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.idemlab.idempotency.Fingerprint;
import jakarta.servlet.http.HttpServletRequest;

import java.io.IOException;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

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
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("method", request.getMethod().toUpperCase(Locale.ROOT));
        fields.put("path", request.getRequestURI());
        fields.put("query", request.getQueryString() == null ? "" : request.getQueryString());
        Map<String, Object> headers = new LinkedHashMap<>();
        for (String name : headerNames) {
            headers.put(name.toLowerCase(Locale.ROOT), Collections.list(request.getHeaders(name)));
        }
        fields.put("headers", headers);
        if (isJson(request.getContentType())) {
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
        return HexFormat.of().formatHex(ClientScope.sha256().digest(bytes));
    }
}
