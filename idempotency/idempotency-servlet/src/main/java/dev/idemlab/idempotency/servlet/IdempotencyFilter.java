package dev.idemlab.idempotency.servlet;

import dev.idemlab.idempotency.IdempotencyContext;
import dev.idemlab.idempotency.IdempotencyException;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.servlet.headers.ExpiryPolicyHeader;
import dev.idemlab.idempotency.servlet.internal.CachedBodyRequest;
import dev.idemlab.idempotency.servlet.internal.ClientScope;
import dev.idemlab.idempotency.servlet.internal.KeyHeader;
import dev.idemlab.idempotency.servlet.internal.MalformedKeyException;
import dev.idemlab.idempotency.servlet.internal.Refusals;
import dev.idemlab.idempotency.servlet.internal.RequestFingerprint;
import dev.idemlab.idempotency.servlet.internal.ResponseCapture;
import dev.idemlab.idempotency.servlet.internal.StoredResponse;
import dev.idemlab.idempotency.servlet.internal.StoredResponseCodec;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Puts one route behind the idempotency coordinator, following
 * <a href="https://datatracker.ietf.org/doc/draft-ietf-httpapi-idempotency-key-header/07/">
 * draft-ietf-httpapi-idempotency-key-header-07</a>. Map it to the route's paths; requests with a method
 * the route does not guard pass straight through.
 *
 * <ul>
 *   <li><b>Section 2.1, Syntax.</b> {@code Idempotency-Key} is an RFC 8941 Item whose value is a String
 *       ({@code Idempotency-Key: "8e03978e-40d5-43e8-bc93-6894a57f9324"}); parameters are ignored. More than
 *       one field line, a List, a bare Token or a malformed String: 400. A key of 1 to 255 characters
 *       (the core's rule); anything else: 400. <em>Deviation, opt-in per route:</em> with
 *       {@link IdempotentRoute.Builder#acceptBareKeys} a key sent bare, as Stripe's SDKs send it, is
 *       taken whole.</li>
 *   <li><b>Section 2.2, Uniqueness, and section 5, Security Considerations.</b> Keys are scoped per client:
 *       a record lives under the route's operation, the client ({@link ClientResolver}, by default the
 *       authenticated principal) and the key, so client B sending client A's key runs its own request
 *       and never gets A's stored response. A request that names no client is refused with 401 unless
 *       the route allows anonymous clients; those share one scope of their own, which no named client
 *       can enter, whatever its name. The key handed to the application for its provider
 *       ({@link #DOWNSTREAM_KEY_ATTRIBUTE}) is scoped the same way.</li>
 *   <li><b>Section 2.4, Idempotency Fingerprint.</b> The fingerprint covers method, path and query, the
 *       headers the route names, and the body: canonical JSON (RFC 8785) for a JSON body, the bytes'
 *       SHA-256 otherwise.</li>
 *   <li><b>Section 2.5, Responsibilities, and 2.6, Idempotency Enforcement Scenarios.</b> The first request
 *       reserves the key and runs; a later one replays the original status, the body byte for byte and
 *       the headers the route names, marked {@code Idempotent-Replayed: true}. A 5xx answer or a thrown
 *       error is not stored: the reservation is released, and a retry runs again.</li>
 *   <li><b>Section 2.7, Error Scenarios.</b> A required key missing: 400; the key reused with another
 *       payload: 422 (or 400, a route setting); the key's first request still in flight: 409 with {@code Retry-After} (the
 *       coordinator's expected duration less the holder's age, never more than its lease has left, in
 *       whole seconds rounded up). All are RFC 9457 {@code application/problem+json} linking the route's
 *       documentation, unless the route names another {@link RefusalWriter}. <em>Deviation, opt-in per route:</em> with {@link IdempotentRoute.Builder#allowWaiting}
 *       and a coordinator under {@code InFlightPolicy.WAIT}, a concurrent request waits for the first
 *       one's response and replays it instead of getting 409.</li>
 * </ul>
 *
 * <p>The filter reads the whole body (up to the route's limit, else 413) before the application runs,
 * and holds the application's response back until it has decided what to store, so the application
 * must answer synchronously (no async servlet API on a guarded route). A stored response must fit the
 * coordinator's result limit as JSON with a base64 body; a larger one is answered once and its replays
 * fail with 500, never running the request again.
 *
 * <p>Thread-safe: one instance serves every request of its route.
 */
public final class IdempotencyFilter implements Filter {

    /**
     * The header that marks a replayed response, {@code Idempotent-Replayed: true}. Replays and the
     * application's answers under a key also carry {@value ExpiryPolicyHeader#NAME} (see
     * {@link ExpiryPolicyHeader}): how long the key is kept and how long an in-flight lease lasts.
     */
    public static final String REPLAYED_HEADER = "Idempotent-Replayed";
    /**
     * The request attribute under which the application finds the client's key as it sent it, for a
     * log line; absent when the request carried none. It is unique only per client (and per tenant):
     * never pass it to a provider, pass {@link #DOWNSTREAM_KEY_ATTRIBUTE}.
     */
    public static final String KEY_ATTRIBUTE = "dev.idemlab.idempotency.key";
    /**
     * The request attribute under which the application finds the key to pass to its provider (a
     * payment provider's own idempotency key): the {@link IdempotencyContext#downstreamKey() downstream
     * key} of the request's record, derived from the store's key prefix, the route's operation scoped
     * to the client, and the client's key (the rule is on {@link IdempotencyContext}). Two clients, or two
     * tenants, sending the same key get different ones, so neither's charge is refused or answered as the
     * other's; every retry of a request, in any process, gets the same one. Set while the application
     * runs for a request with a key (also when the store failed and the filter failed open); absent
     * otherwise.
     */
    public static final String DOWNSTREAM_KEY_ATTRIBUTE = "dev.idemlab.idempotency.downstream-key";
    /**
     * The request attribute under which the application finds the whole {@link IdempotencyContext}
     * (the fencing number too, for a resource that refuses stale holders); set and absent as
     * {@link #DOWNSTREAM_KEY_ATTRIBUTE} is.
     */
    public static final String CONTEXT_ATTRIBUTE = "dev.idemlab.idempotency.context";

    private static final Logger LOG = LoggerFactory.getLogger(IdempotencyFilter.class);
    private static final StoredResponseCodec CODEC = new StoredResponseCodec();

    private final IdempotentRoute route;
    /** The {@link ExpiryPolicyHeader} value, sent on the application's answers and on replays. */
    private final String expiryPolicy;

    /** A filter for {@code route}. */
    public IdempotencyFilter(IdempotentRoute route) {
        this.route = Objects.requireNonNull(route, "route");
        this.expiryPolicy = ExpiryPolicyHeader.valueOf(route.coordinator().config());
    }

    /** The route this filter guards. */
    public IdempotentRoute route() {
        return route;
    }

    @Override
    public void doFilter(ServletRequest servletRequest, ServletResponse servletResponse, FilterChain chain)
            throws IOException, ServletException {
        if (!(servletRequest instanceof HttpServletRequest request)
                || !(servletResponse instanceof HttpServletResponse response)
                || !route.methods().contains(request.getMethod().toUpperCase(Locale.ROOT))) {
            chain.doFilter(servletRequest, servletResponse);
            return;
        }
        String key;
        try {
            key = KeyHeader.parse(Collections.list(request.getHeaders(KeyHeader.NAME)), route.bareKeysAccepted());
        } catch (MalformedKeyException e) {
            refuse(response, Refusals.malformed(route, e));
            return;
        }
        if (key == null) {
            if (route.keyRequired()) {
                refuse(response, Refusals.missing(route, request.getMethod(), request.getRequestURI()));
            } else {
                chain.doFilter(request, response);
            }
            return;
        }
        String brokenRule = IdempotentCall.brokenKeyRule(key);
        if (brokenRule != null) {
            refuse(response, Refusals.invalid(route, brokenRule));
            return;
        }
        String operation = scopedOperation(request);
        if (operation == null) {
            refuse(response, Refusals.clientUnknown(route));
            return;
        }
        byte[] body = CachedBodyRequest.read(request, route.maxBodyBytes());
        if (body == null) {
            refuse(response, Refusals.tooLarge(route));
            return;
        }
        IdempotentCall call = IdempotentCall.of(operation, key,
                RequestFingerprint.of(request, body, route.fingerprintedHeaders()));
        request.setAttribute(KEY_ATTRIBUTE, key);
        run(call, new CachedBodyRequest(request, body), response, chain);
    }

    /**
     * The operation the request's records live under: the route's, scoped to the client the route's
     * resolver names, or to the anonymous scope, which no named client can share; {@code null} when the
     * request names no client and the route does not allow anonymous clients.
     */
    private String scopedOperation(HttpServletRequest request) {
        String client = route.clients().clientOf(request);
        if (client != null && !client.isEmpty()) {
            return ClientScope.operation(route.operation(), client);
        }
        return route.anonymousAllowed() ? ClientScope.anonymousOperation(route.operation()) : null;
    }

    private void run(IdempotentCall call, HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        ResponseCapture capture = new ResponseCapture(response);
        StoredResponse[] ownResponse = new StoredResponse[1];
        try {
            IdempotentResult<StoredResponse> result = route.coordinator().call(call, CODEC, context -> {
                request.setAttribute(CONTEXT_ATTRIBUTE, context);
                request.setAttribute(DOWNSTREAM_KEY_ATTRIBUTE, context.downstreamKey());
                chain.doFilter(request, capture);
                StoredResponse captured = capture.captured(route.replayedHeaders());
                if (captured.status() >= 500) {
                    throw new NotStored(captured.status());
                }
                // Only an answer that is stored says how long it is kept (the capture commits nothing yet).
                capture.setHeader(ExpiryPolicyHeader.NAME, expiryPolicy);
                ownResponse[0] = captured;
                return captured;
            });
            if (result.value() == ownResponse[0]) {
                capture.copyBodyToResponse();
            } else {
                // Another request's response: a replay, or, under a result cache, the first writer's answer
                // to a request that ran too, which is no replay and is not marked as one.
                replay(response, result.value(), ownResponse[0] == null);
            }
        } catch (NotStored e) {
            LOG.debug("{} answered {}: not stored, a retry runs again", call.operation(), e.status);
            capture.copyBodyToResponse();
        } catch (IdempotencyException e) {
            refuse(response, Refusals.of(route, e));
        } catch (IOException | ServletException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new ServletException(e);
        }
    }

    private void replay(HttpServletResponse response, StoredResponse stored, boolean marked) throws IOException {
        response.reset();
        response.setStatus(stored.status());
        for (Map.Entry<String, List<String>> header : stored.headers().entrySet()) {
            for (String value : header.getValue()) {
                response.addHeader(header.getKey(), value);
            }
        }
        if (marked) {
            response.setHeader(REPLAYED_HEADER, "true");
        }
        response.setHeader(ExpiryPolicyHeader.NAME, expiryPolicy);
        response.setContentLength(stored.bodyLength());
        stored.writeBody(response.getOutputStream());
        response.flushBuffer();
    }

    /** Writes {@code refusal} with the route's {@link RefusalWriter}; the rule it states is {@link Refusals}'s, shared with the WebFlux filter. */
    private void refuse(HttpServletResponse response, Refusal refusal) throws IOException {
        // Set first, so that a writer that forgets it still answers the refusal's status, never a 200.
        response.setStatus(refusal.status());
        route.refusals().write(response, refusal);
        if (response.getStatus() != refusal.status()) {
            LOG.warn("{} answered {} for a refusal of {} ({})", route.refusals().getClass().getName(),
                    response.getStatus(), refusal.status(), refusal.code());
        }
    }

    /** The application answered 5xx: not stored, so the coordinator releases the key. */
    private static final class NotStored extends RuntimeException {

        private static final long serialVersionUID = 1L;

        private final int status;

        NotStored(int status) {
            super("answered " + status + ": not stored", null, false, false);
            this.status = status;
        }
    }
}
