package dev.idemlab.idempotency.servlet.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * An RFC 9457 problem details answer, {@code application/problem+json}. Its {@code type} is the
 * route's documentation with a fragment naming the problem, and a {@code Link: <doc>; rel="describedby"}
 * header points at the documentation too, as the draft's section 2.7 (Error Scenarios) shows.
 * Immutable.
 *
 * @param status the HTTP status
 * @param slug the problem's name, e.g. {@code idempotency-key-missing}
 * @param title a short summary that does not change between occurrences
 * @param detail this occurrence, stating the rule that was broken
 */
public record Problem(int status, String slug, String title, String detail) {

    public static final String MEDIA_TYPE = "application/problem+json";
    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** Writes the problem as the whole response; {@code retryAfter} adds a Retry-After header when not null. */
    public void send(HttpServletResponse response, URI documentation, Duration retryAfter) throws IOException {
        ObjectNode json = MAPPER.createObjectNode();
        json.put("type", documentation == null ? "about:blank" : documentation + "#" + slug);
        json.put("title", title);
        json.put("status", status);
        json.put("detail", detail);
        if (documentation != null) {
            json.put("documentation", documentation.toString());
        }
        byte[] body;
        try {
            body = MAPPER.writeValueAsString(json).getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a problem could not be written as JSON", e);
        }
        response.reset();
        response.setStatus(status);
        response.setContentType(MEDIA_TYPE);
        if (documentation != null) {
            response.setHeader("Link", "<" + documentation + ">; rel=\"describedby\"");
        }
        if (retryAfter != null) {
            // Whole seconds, rounded up: a client that honours it never arrives before the hint it was given.
            long seconds = Math.max(1, (retryAfter.toMillis() + 999) / 1000);
            response.setHeader("Retry-After", Long.toString(seconds));
        }
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
        response.flushBuffer();
    }
}
