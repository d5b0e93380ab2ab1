/**
 * A Jakarta Servlet filter that puts a route behind the idempotency coordinator, following
 * draft-ietf-httpapi-idempotency-key-header-07. Its implementation
 * ({@code dev.idemlab.idempotency.servlet.internal}) is exported only for the WebFlux filter, which
 * shares its rules; it is not API.
 *
 * <p>The Servlet API is provided by the container; Jackson parses JSON bodies for their canonical
 * fingerprint and writes stored responses and problem details.
 */
module dev.idemlab.idempotency.servlet {
    requires transitive dev.idemlab.idempotency.core;
    requires transitive jakarta.servlet;
    requires com.fasterxml.jackson.databind;
    requires org.slf4j;

    exports dev.idemlab.idempotency.servlet;
    // Not API: the filters' shared rules (key syntax, fingerprint, problem details, stored responses,
    // client scopes, refusals), exported for the WebFlux filter (idempotency-webflux), which follows them too.
    exports dev.idemlab.idempotency.servlet.internal;
    exports dev.idemlab.idempotency.servlet.headers;
}
