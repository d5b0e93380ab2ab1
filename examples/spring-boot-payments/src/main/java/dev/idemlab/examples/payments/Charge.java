package dev.idemlab.examples.payments;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * A charge the service made, as it answers and stores it: the provider's charge id, the order and the
 * amount. Immutable.
 */
public record Charge(String id, @JsonProperty("order_id") String orderId, long amount) { }
