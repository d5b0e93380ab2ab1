package dev.idemlab.idempotency.servlet;

import dev.idemlab.idempotency.servlet.internal.Problem;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;

/**
 * Writes a {@link Refusal} as the whole response. The default, {@link #PROBLEM_DETAILS}, is what the
 * draft's section 2.7 (Error Scenarios) shows; a route whose clients were written against another
 * API's error shape (say, Stripe's {@code {"error": {...}}} objects) names its own. Implementations must
 * be thread-safe and must set the refusal's status.
 */
@FunctionalInterface
public interface RefusalWriter {

    /**
     * RFC 9457 {@code application/problem+json}, its {@code type} the route's documentation with the
     * refusal's code as fragment, a {@code Link: <doc>; rel="describedby"} header, and {@code Retry-After}
     * in whole seconds (rounded up) for a key in flight.
     */
    RefusalWriter PROBLEM_DETAILS = (response, refusal) -> new Problem(refusal.status(), refusal.code(),
            refusal.title(), refusal.detail()).send(response, refusal.documentation(), refusal.retryAfter());

    /**
     * Writes {@code refusal} as the response, replacing anything buffered.
     *
     * @throws IOException when the response cannot be written
     */
    void write(HttpServletResponse response, Refusal refusal) throws IOException;
}
