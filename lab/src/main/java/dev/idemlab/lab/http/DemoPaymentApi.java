package dev.idemlab.lab.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.PaymentProvider;
import dev.idemlab.provider.ProviderException;
import dev.idemlab.provider.ProviderTimeoutException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.function.IntConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The demo payment API behind the idempotency filter:
 *
 * <ul>
 *   <li>{@code POST /orders/{id}/charge} with {@code {"amount": N}}: charges the provider, passing the
 *       request's downstream key ({@link RequestKeys}); 201 with {@code {"id","order_id","amount"}} and a Location.
 *       A provider timeout is 504 (not stored by the filter, so a retry charges again).</li>
 *   <li>{@code GET /ledger}: the provider's ledger, every charge it made, with the key it was passed and
 *       the request's Idempotency-Key that key was derived from ({@code request_key}).</li>
 *   <li>{@code POST /faults} with {@code {"fail_next": n}}: the next n charges time out before charging.</li>
 *   <li>{@code GET /docs/idempotency}: the rules the idempotency filter follows.</li>
 * </ul>
 *
 * Thread-safe.
 */
final class DemoPaymentApi extends HttpServlet {

    private static final long serialVersionUID = 1L;
    private static final Pattern CHARGE = Pattern.compile("/orders/([A-Za-z0-9._~-]{1,100})/charge");
    private static final ObjectMapper JSON = new ObjectMapper();
    /**
     * The route's idempotency rules as {@code GET /docs/idempotency} publishes them: the key's format, its
     * scope, and how long a record is kept (the draft's sections 2.3 and 2.5 ask for an expiry policy).
     */
    static String docs(IdempotencyConfig config, boolean guarded) {
        if (!guarded) {
            return "This server runs without the Idempotency-Key filter (lab serve --without-filter): the baseline\n"
                    + "its cost is measured against. Nothing here is idempotent: every request runs.\n";
        }
        return "Idempotency-Key (draft-ietf-httpapi-idempotency-key-header-07) on POST /orders/{id}/charge:\n"
            + "- required, as a String item: Idempotency-Key: \"8e03978e\" (1 to 255 characters, no control\n"
            + "  characters; a UUID is a good key)\n"
            + "- scoped per client (Authorization: Bearer <client>)\n"
            + "- a retry with the same key and body replays the first answer (Idempotent-Replayed: true)\n"
            + "- the same key with another body: 422; while the first is in flight: 409 with Retry-After\n"
            + "- 5xx answers are not stored: a retry runs again\n"
            + "\n"
            + "Expiry: a completed request's answer is kept for " + human(config.ttl()) + " after it completed; a key\n"
            + "sent again after that is a new request, and runs. A request in flight holds its key for a lease of\n"
            + human(config.lease()) + ", renewed while it runs; if its server dies, the key is free once the lease ends.\n"
            + "\n"
            + "POST /v1/charges, for clients written against Stripe's API (form-encoded amount, currency,\n"
            + "metadata[order_id]; answers a charge object, errors as {\"error\": {...}}), on the same records:\n"
            + "- the key is optional, and may be sent bare (Idempotency-Key: 3f2b9c1e-...), as Stripe's SDKs\n"
            + "  send it: a compatibility deviation from the draft's String item (section 2.1)\n"
            + "- the same key with other parameters: 400 idempotency_error (Stripe's; the draft's is 422)\n"
            + "- while the first is in flight: 409 idempotency_key_in_use, which Stripe's SDKs retry\n";
    }

    private static String human(java.time.Duration duration) {
        long seconds = duration.toSeconds();
        if (seconds % 3600 == 0) {
            return seconds / 3600 + " h";
        }
        return seconds % 60 == 0 ? seconds / 60 + " min" : seconds + " s";
    }

    private final transient PaymentProvider provider;
    private final transient IntConsumer failNext;
    private final transient RequestKeys requestKeys;
    private final String docs;
    /** The store's raw writes around the charge, for the filter's floor; {@code null} for the demo itself. */
    private final transient RawWrites rawWrites;

    DemoPaymentApi(PaymentProvider provider, IntConsumer failNext, String docs, RequestKeys requestKeys) {
        this(provider, failNext, docs, requestKeys, null);
    }

    DemoPaymentApi(PaymentProvider provider, IntConsumer failNext, String docs, RequestKeys requestKeys,
                   RawWrites rawWrites) {
        this.provider = provider;
        this.failNext = failNext;
        this.requestKeys = requestKeys;
        this.docs = docs;
        this.rawWrites = rawWrites;
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String path = request.getRequestURI();
        if ("/faults".equals(path)) {
            planFaults(request, response);
            return;
        }
        Matcher charge = CHARGE.matcher(path);
        if (!charge.matches()) {
            problem(response, 404, "no such route: POST " + path);
            return;
        }
        JsonNode amount;
        try {
            amount = JSON.readTree(request.getInputStream()).path("amount");
        } catch (IOException e) {
            problem(response, 400, "the body must be a JSON object {\"amount\": N}");
            return;
        }
        if (!amount.isIntegralNumber() || !amount.canConvertToLong() || amount.asLong() <= 0) {
            problem(response, 400, "amount must be a positive integer in minor units");
            return;
        }
        if (rawWrites != null) {
            chargeWithRawWrites(request, response, charge.group(1), amount.asLong());
            return;
        }
        String key = requestKeys.downstreamKeyOf(request);
        Charge made;
        try {
            made = provider.charge(charge.group(1), amount.asLong(), key);
        } catch (ProviderTimeoutException e) {
            problem(response, 504, "the payment provider timed out: " + e.getMessage());
            return;
        } catch (ProviderException | IllegalArgumentException e) {
            problem(response, 502, "the payment provider refused: " + e.getMessage());
            return;
        }
        response.setStatus(201);
        response.setHeader("Location", "/charges/" + made.id());
        write(response, "application/json", JSON.writeValueAsString(chargeJson(made)));
    }

    /**
     * The charge with the store's raw writes by hand around it ({@link RawWrites}): the record's key is
     * also the key the provider is charged with, as a derived downstream key would be.
     */
    private void chargeWithRawWrites(HttpServletRequest request, HttpServletResponse response, String orderId,
                                     long amount) throws IOException {
        String recordKey = RawWrites.recordKey(request);
        if (recordKey == null) {
            problem(response, 400, "an Idempotency-Key and a client are required");
            return;
        }
        if (!rawWrites.reserve(recordKey)) {
            rawWrites.answerTaken(recordKey, response);
            return;
        }
        Charge made = provider.charge(orderId, amount, recordKey);
        String location = "/charges/" + made.id();
        String body = JSON.writeValueAsString(chargeJson(made));
        rawWrites.complete(recordKey, 201, location, body);
        response.setStatus(201);
        response.setHeader("Location", location);
        write(response, "application/json", body);
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        switch (request.getRequestURI()) {
            case "/ledger" -> {
                ArrayNode ledger = JSON.createArrayNode();
                provider.ledger().forEach(each -> ledger.add(ledgerEntry(each, requestKeys)));
                write(response, "application/json", JSON.writeValueAsString(ledger));
            }
            case "/docs/idempotency" -> write(response, "text/plain;charset=utf-8", docs);
            default -> problem(response, 404, "no such route: GET " + request.getRequestURI());
        }
    }

    private void planFaults(HttpServletRequest request, HttpServletResponse response) throws IOException {
        JsonNode count;
        try {
            count = JSON.readTree(request.getInputStream()).path("fail_next");
        } catch (IOException e) {
            count = JSON.missingNode();
        }
        if (!count.canConvertToInt() || count.asInt() < 0) {
            problem(response, 400, "a fault order is {\"fail_next\": n} with n a non-negative integer");
            return;
        }
        failNext.accept(count.asInt());
        response.setStatus(204);
    }

    /**
     * A charge as {@code GET /ledger} lists it: the key the provider was passed ({@code idempotency_key})
     * and, where that key was derived from a request's Idempotency-Key, the request's key
     * ({@code request_key}), so that a black-box check can count the charges its key made.
     */
    private static ObjectNode ledgerEntry(Charge charge, RequestKeys requestKeys) {
        ObjectNode json = chargeJson(charge).put("idempotency_key", charge.idempotencyKey());
        String requestKey = requestKeys.requestKeyOf(charge.idempotencyKey());
        if (requestKey != null) {
            json.put("request_key", requestKey);
        }
        return json;
    }

    private static ObjectNode chargeJson(Charge charge) {
        ObjectNode json = JSON.createObjectNode();
        json.put("id", charge.id());
        json.put("order_id", charge.orderId());
        json.put("amount", charge.amount());
        return json;
    }

    private static void problem(HttpServletResponse response, int status, String detail) throws IOException {
        ObjectNode json = JSON.createObjectNode().put("title", "Payment API error").put("status", status)
                .put("detail", detail);
        response.setStatus(status);
        write(response, "application/problem+json", JSON.writeValueAsString(json));
    }

    private static void write(HttpServletResponse response, String contentType, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        response.setContentType(contentType);
        response.setContentLength(bytes.length);
        response.getOutputStream().write(bytes);
    }
}
