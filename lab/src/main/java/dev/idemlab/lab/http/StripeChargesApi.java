package dev.idemlab.lab.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.PaymentProvider;
import dev.idemlab.provider.ProviderException;
import dev.idemlab.provider.ProviderTimeoutException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code POST /v1/charges} as Stripe's API takes it, so that an unmodified Stripe SDK can be pointed at
 * the lab: a form-encoded body ({@code amount}, {@code currency}, {@code metadata[order_id]}), the
 * answer a charge object ({@code id}, {@code object}, {@code amount}, {@code currency}, ...), errors as
 * {@code {"error": {"type": ..., "message": ...}}}. The provider is charged with the request's downstream
 * key ({@link RequestKeys}: the client's key scoped to the client and the store's key prefix), never the
 * client's raw key. Only what the lab's scenarios use is there: no customers, sources or captures.
 * Thread-safe.
 */
final class StripeChargesApi extends HttpServlet {

    private static final long serialVersionUID = 1L;
    /** The path of the route. */
    static final String PATH = "/v1/charges";
    /** The order charged when the request's metadata names none. */
    static final String DEFAULT_ORDER = "stripe-order";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final transient PaymentProvider provider;
    private final transient RequestKeys requestKeys;

    StripeChargesApi(PaymentProvider provider, RequestKeys requestKeys) {
        this.provider = provider;
        this.requestKeys = requestKeys;
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if (!PATH.equals(request.getRequestURI())) {
            error(response, 404, "invalid_request_error", null, "Unrecognized request URL (POST " + request.getRequestURI() + ")");
            return;
        }
        Map<String, String> form = form(new String(request.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        long amount;
        try {
            amount = Long.parseLong(form.getOrDefault("amount", ""));
        } catch (NumberFormatException e) {
            amount = 0;
        }
        if (amount <= 0) {
            error(response, 400, "invalid_request_error", "amount", "amount must be a positive integer in minor units");
            return;
        }
        String currency = form.get("currency");
        if (currency == null || !currency.matches("[a-z]{3}")) {
            error(response, 400, "invalid_request_error", "currency", "currency must be a three-letter ISO code in lower case");
            return;
        }
        String orderId = form.getOrDefault("metadata[order_id]", DEFAULT_ORDER);
        Charge made;
        try {
            made = provider.charge(orderId, amount, requestKeys.downstreamKeyOf(request));
        } catch (ProviderTimeoutException e) {
            error(response, 500, "api_error", null, "the payment provider timed out: " + e.getMessage());
            return;
        } catch (ProviderException | IllegalArgumentException e) {
            error(response, 502, "api_error", null, "the payment provider refused: " + e.getMessage());
            return;
        }
        ObjectNode charge = JSON.createObjectNode().put("id", made.id()).put("object", "charge")
                .put("amount", made.amount()).put("currency", currency).put("livemode", false).put("paid", true)
                .put("status", "succeeded");
        charge.putObject("metadata").put("order_id", made.orderId());
        response.setStatus(200);
        write(response, JSON.writeValueAsBytes(charge));
    }

    /** An {@code application/x-www-form-urlencoded} body as Stripe's SDKs send it: {@code a=1&metadata[k]=v}. */
    static Map<String, String> form(String body) {
        Map<String, String> fields = new LinkedHashMap<>();
        for (String pair : body.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            fields.putIfAbsent(name, value);
        }
        return fields;
    }

    /** Writes a Stripe-shaped error object as the whole response. */
    static void error(HttpServletResponse response, int status, String type, String param, String message)
            throws IOException {
        error(response, status, type, null, param, message);
    }

    static void error(HttpServletResponse response, int status, String type, String code, String param, String message)
            throws IOException {
        ObjectNode error = JSON.createObjectNode();
        ObjectNode fields = error.putObject("error").put("type", type).put("message", message);
        if (code != null) {
            fields.put("code", code);
        }
        if (param != null) {
            fields.put("param", param);
        }
        response.reset();
        response.setStatus(status);
        write(response, JSON.writeValueAsBytes(error));
    }

    private static void write(HttpServletResponse response, byte[] body) throws IOException {
        response.setContentType("application/json");
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }
}
