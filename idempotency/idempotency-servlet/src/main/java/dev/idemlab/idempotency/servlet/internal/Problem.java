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
        byte[] body = json(documentation);
        response.reset();
        response.setStatus(status);
        response.setContentType(MEDIA_TYPE);
        if (documentation != null) {
            response.setHeader("Link", link(documentation));
        }
        if (retryAfter != null) {
            response.setHeader("Retry-After", retryAfterSeconds(retryAfter));
        }
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
        response.flushBuffer();
    }

    /**
     * The problem's JSON body, as UTF-8: what {@link #send} writes, and what the WebFlux filter writes
     * on its own response type, so that both filters answer the same bytes.
     */
    public byte[] json(URI documentation) {
        ObjectNode json = MAPPER.createObjectNode();
        json.put("type", documentation == null ? "about:blank" : documentation + "#" + slug);
        json.put("title", title);
        json.put("status", status);
        json.put("detail", detail);
        if (documentation != null) {
            json.put("documentation", documentation.toString());
        }
        try {
            return MAPPER.writeValueAsString(json).getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a problem could not be written as JSON", e);
        }
    }

    /** The {@code Link} header's value pointing at the documentation, as the draft's section 2.7 shows. */
    public static String link(URI documentation) {
        return "<" + documentation + ">; rel=\"describedby\"";
    }

    /**
     * The {@code Retry-After} header's value: whole seconds, rounded up, at least 1, so that a client
     * that honours it never arrives before the hint it was given.
     */
    public static String retryAfterSeconds(Duration retryAfter) {
        return Long.toString(Math.max(1, (retryAfter.toMillis() + 999) / 1000));
    }
}
