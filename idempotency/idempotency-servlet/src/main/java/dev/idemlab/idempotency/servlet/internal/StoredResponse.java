package dev.idemlab.idempotency.servlet.internal;

import java.util.List;
import java.util.Map;

/**
 * A response as the filter stores it for replay: the status, the headers the route names (in the
 * order they were set, every value), and the body byte for byte. Immutable.
 *
 * @param status the HTTP status
 * @param headers header name to values, for the headers the route replays
 * @param body the body's bytes
 */
public record StoredResponse(int status, Map<String, List<String>> headers, byte[] body) {

    public StoredResponse {
        headers = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(headers));
        body = body.clone();
    }

    @Override
    public byte[] body() {
        return body.clone();
    }

    /** Length of the body without copying it. */
    public int bodyLength() {
        return body.length;
    }

    /** The body as base64, without copying it first. */
    public String bodyAsBase64() {
        return java.util.Base64.getEncoder().encodeToString(body);
    }

    /** Writes the body to {@code out} without copying it. */
    public void writeBody(java.io.OutputStream out) throws java.io.IOException {
        out.write(body);
    }
}
