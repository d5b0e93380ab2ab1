package dev.idemlab.provider.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idemlab.provider.ProviderKeyReuseException;
import dev.idemlab.provider.StaleFenceException;

/**
 * An RFC 9457 problem details body: what the service answers instead of a stack trace. The
 * extension members carry the state a client needs to rebuild the provider's exception.
 *
 * @param status the HTTP status
 * @param json the problem object, with {@code type}, {@code title}, {@code status}, {@code detail}
 */
record Problem(int status, ObjectNode json) {

    static final String TYPE_PREFIX = "/problems/";

    static Problem of(int status, String type, String title, String detail) {
        ObjectNode json = WireFormat.object()
                .put("type", TYPE_PREFIX + type)
                .put("title", title)
                .put("status", status)
                .put("detail", detail);
        return new Problem(status, json);
    }

    static Problem invalidRequest(String rule) {
        return of(400, "invalid-request", "Invalid request", rule);
    }

    static Problem notFound(String detail) {
        return of(404, "not-found", "Not found", detail);
    }

    static Problem methodNotAllowed(String method, String path, String allowed) {
        return of(405, "method-not-allowed", "Method not allowed", method + " is not allowed on " + path
                + "; allowed: " + allowed);
    }

    static Problem tooLarge(int limit) {
        return of(413, "body-too-large", "Body too large", "the body must be at most " + limit + " bytes");
    }

    static Problem keyReuse(ProviderKeyReuseException e) {
        Problem problem = of(422, "key-reuse", "Idempotency key reused", e.getMessage());
        problem.json.put(WireFormat.IDEMPOTENCY_KEY, e.key());
        problem.json.set("charge", WireFormat.chargeNode(e.earlierCharge()));
        problem.json.put("requested_order_id", e.requestedOrderId());
        problem.json.put("requested_amount", e.requestedAmount());
        return problem;
    }

    static Problem staleFence(StaleFenceException e) {
        Problem problem = of(409, "stale-fence", "Stale fence", e.getMessage());
        problem.json.put("fence_key", e.key());
        problem.json.put(WireFormat.FENCE, e.fence());
        problem.json.put("highest_fence", e.highestSeen());
        return problem;
    }

    /** Neutral on purpose: a caller that times out cannot know whether the charge was made. */
    static Problem timeout(String orderId) {
        Problem problem = of(504, "provider-timeout", "Provider timed out",
                "the provider timed out on order " + orderId + "; whether it charged is for the ledger to say");
        problem.json.put(WireFormat.ORDER_ID, orderId);
        return problem;
    }

    static Problem internal() {
        return of(500, "internal-error", "Internal error", "the provider failed to answer; see its log");
    }

    static Problem httpError(int status, String message) {
        return of(status, "http-error", "HTTP error " + status, message == null ? "HTTP error " + status : message);
    }

    String body() {
        return WireFormat.write(json);
    }
}
