package dev.idemlab.provider.http;

import dev.idemlab.provider.ChargeResult;
import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.ProviderKeyReuseException;
import dev.idemlab.provider.ProviderTimeoutException;
import dev.idemlab.provider.StaleFenceException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;

/**
 * The service's routes over one {@link FakePaymentProvider}. Blocking on purpose: a charge holds
 * its thread for the provider's latency, as a call into a real provider would. Thread-safe.
 */
final class ProviderRoutes extends Handler.Abstract {

    static final int MAX_BODY_BYTES = 64 * 1024;
    static final String IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";

    private static final Logger LOG = LoggerFactory.getLogger(ProviderRoutes.class);
    private static final String CHARGES = "/charges";
    private static final String CHARGE_PREFIX = "/charges/";
    private static final String LEDGER = "/ledger";
    private static final String FAULTS = "/faults";

    private final FakePaymentProvider provider;

    ProviderRoutes(FakePaymentProvider provider) {
        this.provider = provider;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        try {
            route(request, response, callback);
        } catch (InvalidRequestException e) {
            problem(response, callback, Problem.invalidRequest(e.getMessage()));
        } catch (RuntimeException e) {
            LOG.error("{} {} failed", request.getMethod(), Request.getPathInContext(request), e);
            problem(response, callback, Problem.internal());
        }
        return true;
    }

    private void route(Request request, Response response, Callback callback) {
        String method = request.getMethod();
        String path = Request.getPathInContext(request);
        if (path.equals(CHARGES)) {
            if (method.equals("GET")) {
                chargesWithKey(request, response, callback);
            } else if (allowed(method, "POST", "GET, POST", path, response, callback)) {
                charge(request, response, callback);
            }
        } else if (path.startsWith(CHARGE_PREFIX) && path.length() > CHARGE_PREFIX.length()
                && path.indexOf('/', CHARGE_PREFIX.length()) < 0) {
            if (allowed(method, "GET", path, response, callback)) {
                findCharge(path.substring(CHARGE_PREFIX.length()), response, callback);
            }
        } else if (path.equals(LEDGER)) {
            if (allowed(method, "GET", path, response, callback)) {
                send(response, callback, 200, WireFormat.JSON, WireFormat.ledger(provider.ledger()));
            }
        } else if (path.equals(FAULTS)) {
            if (allowed(method, "POST", path, response, callback)) {
                planFaults(request, response, callback);
            }
        } else {
            problem(response, callback, Problem.notFound("no route for " + path
                    + "; routes are POST /charges, GET /charges?idempotency_key=K, GET /charges/{id}, GET /ledger, "
                    + "POST /faults"));
        }
    }

    private void charge(Request request, Response response, Callback callback) {
        byte[] body = body(request, response, callback);
        if (body == null) {
            return;
        }
        var chargeRequest = RequestRules.chargeRequest(body, request.getHeaders().get(IDEMPOTENCY_KEY_HEADER));
        ChargeResult result;
        try {
            result = provider.chargeOrReplay(chargeRequest);
        } catch (ProviderKeyReuseException e) {
            problem(response, callback, Problem.keyReuse(e));
            return;
        } catch (StaleFenceException e) {
            problem(response, callback, Problem.staleFence(e));
            return;
        } catch (ProviderTimeoutException e) {
            problem(response, callback, Problem.timeout(e.orderId()));
            return;
        }
        if (!result.replayed()) {
            response.getHeaders().put(HttpHeader.LOCATION, CHARGE_PREFIX + result.charge().id());
        }
        send(response, callback, result.replayed() ? 200 : 201, WireFormat.JSON, WireFormat.charge(result.charge()));
    }

    /** {@code GET /charges?idempotency_key=K}: the charges requested with that key, oldest first (a JSON array). */
    private void chargesWithKey(Request request, Response response, Callback callback) {
        String key = RequestRules.idempotencyKeyQuery(request.getHttpURI().getQuery());
        send(response, callback, 200, WireFormat.JSON, WireFormat.ledger(provider.chargesWithKey(key)));
    }

    private void findCharge(String id, Response response, Callback callback) {
        provider.findCharge(id).ifPresentOrElse(
                charge -> send(response, callback, 200, WireFormat.JSON, WireFormat.charge(charge)),
                () -> problem(response, callback, Problem.notFound("no charge " + id)));
    }

    private void planFaults(Request request, Response response, Callback callback) {
        byte[] body = body(request, response, callback);
        if (body == null) {
            return;
        }
        RequestRules.FaultOrder order = RequestRules.faultOrder(body);
        if (order.field().equals(WireFormat.FAIL_NEXT)) {
            provider.failNextCalls(order.count());
        } else {
            provider.chargeThenTimeOutNextCalls(order.count());
        }
        response.setStatus(204);
        callback.succeeded();
    }

    /** The body, or {@code null} after answering when it cannot be had. */
    private static byte[] body(Request request, Response response, Callback callback) {
        byte[] body;
        try (InputStream in = Request.asInputStream(request)) {
            body = in.readNBytes(MAX_BODY_BYTES + 1);
        } catch (IOException e) {
            throw new InvalidRequestException("the body could not be read");
        }
        if (body.length > MAX_BODY_BYTES) {
            problem(response, callback, Problem.tooLarge(MAX_BODY_BYTES));
            return null;
        }
        return body;
    }

    private static boolean allowed(String method, String allowed, String path, Response response, Callback callback) {
        return allowed(method, allowed, allowed, path, response, callback);
    }

    /** Whether {@code method} is {@code expected}; if not, a 405 naming {@code allowed}, every method of the path. */
    private static boolean allowed(String method, String expected, String allowed, String path, Response response,
                                   Callback callback) {
        if (method.equals(expected)) {
            return true;
        }
        response.getHeaders().put(HttpHeader.ALLOW, allowed);
        problem(response, callback, Problem.methodNotAllowed(method, path, allowed));
        return false;
    }

    static void problem(Response response, Callback callback, Problem problem) {
        send(response, callback, problem.status(), WireFormat.PROBLEM_JSON, problem.body());
    }

    private static void send(Response response, Callback callback, int status, String contentType, String body) {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
        Content.Sink.write(response, true, body, callback);
    }
}
