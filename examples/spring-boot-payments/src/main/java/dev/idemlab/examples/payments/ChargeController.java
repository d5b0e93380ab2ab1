package dev.idemlab.examples.payments;

import jakarta.servlet.http.HttpServletRequest;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

import java.util.Collections;

/**
 * {@code POST /orders/{orderId}/charge} with {@code {"amount": N}} and an {@code Idempotency-Key}:
 * 201 with the charge; a replay is the same 201 and body, marked {@code Idempotent-Replayed: true}.
 * {@code Authorization: Bearer NAME} names the client (a stand-in for authentication; none is
 * {@code anonymous}). Refusals are problem details ({@link Problems}). Thread-safe.
 */
@RestController
public class ChargeController {

    /** The header that marks an answer made for an earlier request. */
    static final String REPLAYED = "Idempotent-Replayed";
    private static final String BEARER = "Bearer ";

    /** The body a client sends. */
    record ChargeBody(Long amount) { }

    private final Charges charges;

    ChargeController(Charges charges) {
        this.charges = charges;
    }

    @PostMapping(path = "/orders/{orderId}/charge", produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<Charge> charge(@PathVariable String orderId, @RequestBody ChargeBody body,
                                  HttpServletRequest http) {
        String key = IdempotencyKeyHeader.parse(Collections.list(http.getHeaders(IdempotencyKeyHeader.NAME)));
        if (key == null) {
            throw new InvalidChargeRequestException("Idempotency-Key is missing", "POST /orders/{orderId}/charge "
                    + "requires an Idempotency-Key header (a String item, e.g. Idempotency-Key: \"8e03978e\")");
        }
        if (body == null || body.amount() == null || body.amount() <= 0) {
            throw new InvalidChargeRequestException("Invalid amount",
                    "amount must be a positive whole number of minor units, e.g. {\"amount\": 500}");
        }
        ChargeAttempt attempt = new ChargeAttempt();
        Charge charge = charges.charge(key, client(http), new ChargeRequest(orderId, body.amount()), attempt, null);
        ResponseEntity.BodyBuilder created = ResponseEntity.status(HttpStatus.CREATED);
        if (attempt.replayed()) {
            created.header(REPLAYED, "true");
        }
        return created.body(charge);
    }

    private static String client(HttpServletRequest http) {
        String authorization = http.getHeader("Authorization");
        if (authorization != null && authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            String client = authorization.substring(BEARER.length()).strip();
            if (!client.isEmpty()) {
                return client;
            }
        }
        return "anonymous";
    }
}
