package dev.idemlab.lab.http;

import dev.idemlab.idempotency.servlet.Refusal;
import dev.idemlab.idempotency.servlet.RefusalWriter;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;

/**
 * The idempotency filter's refusals in the shape Stripe's SDKs read: a key in flight is 409
 * {@code idempotency_key_in_use} (which the SDK retries), a key reused with other parameters 400
 * {@code idempotency_error} (which it raises as its IdempotencyException), a malformed or invalid key
 * 400 {@code invalid_request_error}, a store that cannot be reached {@code api_error}. Stateless.
 */
final class StripeRefusals implements RefusalWriter {

    @Override
    public void write(HttpServletResponse response, Refusal refusal) throws IOException {
        switch (refusal.code()) {
            case Refusal.KEY_IN_FLIGHT -> StripeChargesApi.error(response, 409, "idempotency_error",
                    "idempotency_key_in_use", null, refusal.detail());
            case Refusal.KEY_REUSED -> StripeChargesApi.error(response, refusal.status(), "idempotency_error", null,
                    refusal.detail());
            default -> StripeChargesApi.error(response, refusal.status(), refusal.status() >= 500 ? "api_error"
                    : refusal.status() == 401 ? "authentication_error" : "invalid_request_error", refusal.code(), null,
                    refusal.detail());
        }
    }
}
