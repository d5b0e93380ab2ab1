package dev.idemlab.examples.payments;

import com.fasterxml.jackson.annotation.JsonProperty;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.stereotype.Component;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientException;

import java.net.http.HttpClient;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The payment provider over HTTP ({@code payments.provider-url}): {@code POST /charges} with the order,
 * the amount and the call's downstream key (never the client's raw Idempotency-Key), {@code GET /ledger} and
 * {@code POST /faults}.
 * Thread-safe.
 */
@Component
public class ProviderClient {

    /** What the provider answers for a charge. */
    record ProviderCharge(String id, @JsonProperty("order_id") String orderId, long amount) { }

    private final RestClient http;

    ProviderClient(PaymentsProperties properties) {
        JdkClientHttpRequestFactory requests = new JdkClientHttpRequestFactory(HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1).connectTimeout(properties.providerTimeout()).build());
        requests.setReadTimeout(properties.providerTimeout());
        this.http = RestClient.builder().baseUrl(properties.providerUrl().toString()).requestFactory(requests).build();
    }

    /**
     * Charges the order once; the provider appends the charge to its ledger.
     *
     * @throws ProviderException when the provider failed, timed out or could not be reached
     */
    ProviderCharge charge(String orderId, long amount, String idempotencyKey) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("order_id", orderId);
        body.put("amount", amount);
        body.put("idempotency_key", idempotencyKey);
        try {
            ProviderCharge charge = http.post().uri("/charges").contentType(MediaType.APPLICATION_JSON).body(body)
                    .retrieve().body(ProviderCharge.class);
            if (charge == null || charge.id() == null) {
                throw new ProviderException("the provider answered a charge without an id", null);
            }
            return charge;
        } catch (RestClientException e) {
            throw new ProviderException("the provider did not charge order " + orderId + ": " + e.getMessage(), e);
        }
    }

    /** The provider's ledger, as it answers it. */
    ResponseEntity<String> ledger() {
        return http.get().uri("/ledger").retrieve().onStatus(HttpStatusCode::isError, (request, response) -> { })
                .toEntity(String.class);
    }

    /** Passes a fault order ({@code {"fail_next": n}}) to the provider, and its status back. */
    ResponseEntity<String> faults(String order) {
        return http.post().uri("/faults").contentType(MediaType.APPLICATION_JSON).body(order).retrieve()
                .onStatus(HttpStatusCode::isError, (request, response) -> { }).toEntity(String.class);
    }
}
