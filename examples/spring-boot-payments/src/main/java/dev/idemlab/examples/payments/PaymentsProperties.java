package dev.idemlab.examples.payments;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The service's own settings under {@code payments.*}; the store, policy and lease are the starter's
 * ({@code idempotency.*}). Immutable and thread-safe.
 *
 * @param idempotency how charges are made idempotent: {@code reservation} (the starter's
 *     {@code @Idempotent}: reserve the key, charge once, replay) or {@code result-cache} (the post's
 *     broken baseline: look up, charge, store the first result; a retry in flight charges again)
 * @param providerUrl the payment provider's base URL ({@code POST /charges}, {@code GET /ledger})
 * @param providerTimeout how long one call to the provider may take
 * @param portFile where to write the port once the service is ready, for a parent process that
 *     started it on port 0; none by default
 */
@ConfigurationProperties("payments")
public record PaymentsProperties(
        @DefaultValue("reservation") IdempotencyMode idempotency,
        @DefaultValue("http://127.0.0.1:8081") URI providerUrl,
        @DefaultValue("30s") Duration providerTimeout,
        Path portFile) {

    /** The value of {@code payments.idempotency}. */
    public enum IdempotencyMode {
        /** The starter's reservation: one charge per key, whatever the retries. */
        RESERVATION,
        /** The post's result cache, kept to show the double charge: never for real money. */
        RESULT_CACHE
    }
}
