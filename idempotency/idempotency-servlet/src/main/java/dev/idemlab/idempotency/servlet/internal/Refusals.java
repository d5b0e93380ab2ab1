package dev.idemlab.idempotency.servlet.internal;

import dev.idemlab.idempotency.IdempotencyException;
import dev.idemlab.idempotency.IdempotencyInProgressException;
import dev.idemlab.idempotency.IdempotencyKeyReuseException;
import dev.idemlab.idempotency.servlet.IdempotentRoute;
import dev.idemlab.idempotency.servlet.Refusal;

import java.util.Locale;

/**
 * The draft's refusals (section 2.7, Error Scenarios) as {@link Refusal}s, decided once for every
 * filter that guards a route: the servlet filter's answers and the WebFlux filter's must not drift
 * apart, so the status, the stable code and the rule each states are written here, and each filter
 * only writes the refusal on its own response type. Stateless and thread-safe.
 */
public final class Refusals {

    private Refusals() { }

    /** The key's field breaks the syntax the route accepts: 400. */
    public static Refusal malformed(IdempotentRoute route, MalformedKeyException e) {
        return new Refusal(400, Refusal.KEY_MALFORMED, "Idempotency-Key is malformed", e.getMessage(), null,
                route.documentation());
    }

    /** A required key is missing: 400, naming the request and the header's shape. */
    public static Refusal missing(IdempotentRoute route, String method, String path) {
        return new Refusal(400, Refusal.KEY_MISSING, "Idempotency-Key is missing", method + " " + path
                + " requires an Idempotency-Key header (a String item, e.g. Idempotency-Key: \"8e03978e\")", null,
                route.documentation());
    }

    /** The key breaks the core's rule on keys ({@code brokenRule}): 400. */
    public static Refusal invalid(IdempotentRoute route, String brokenRule) {
        return new Refusal(400, Refusal.KEY_INVALID, "Idempotency-Key is invalid", brokenRule, null,
                route.documentation());
    }

    /** The request names no client and the route does not allow anonymous ones: 401. */
    public static Refusal clientUnknown(IdempotentRoute route) {
        return new Refusal(401, "idempotency-client-unknown", "Client not identified",
                "idempotency keys are scoped per client, and this request names no client: authenticate", null,
                route.documentation());
    }

    /** The body is larger than the route's limit: 413. */
    public static Refusal tooLarge(IdempotentRoute route) {
        return new Refusal(413, "request-too-large", "Request body too large",
                "an idempotent request's body must be at most " + route.maxBodyBytes() + " bytes", null,
                route.documentation());
    }

    /**
     * What the coordinator's refusal {@code e} answers: 409 with the coordinator's Retry-After hint for
     * a key in flight, the route's mismatch status for a reused key, the exception's own status (503
     * for a store that failed closed) otherwise.
     */
    public static Refusal of(IdempotentRoute route, IdempotencyException e) {
        if (e instanceof IdempotencyInProgressException inProgress) {
            return new Refusal(409, Refusal.KEY_IN_FLIGHT, "A request with this key is in flight",
                    "a request with this Idempotency-Key is still being processed; retry after it completes",
                    inProgress.retryAfter(), route.documentation());
        }
        if (e instanceof IdempotencyKeyReuseException) {
            return new Refusal(route.mismatchStatus(), Refusal.KEY_REUSED, "Idempotency-Key reused",
                    "this Idempotency-Key was already used for a different request (method, path, named headers "
                            + "or body differ); a key is for retries of one request only", null, route.documentation());
        }
        return new Refusal(e.httpStatus(), "idempotency-" + e.getClass().getSimpleName().replace("Exception", "")
                .replaceAll("([a-z])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT), "Idempotency failure", e.getMessage(),
                null, route.documentation());
    }
}
