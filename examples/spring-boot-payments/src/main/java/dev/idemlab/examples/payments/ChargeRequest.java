package dev.idemlab.examples.payments;

/**
 * What a client asks for: charge {@code amount} (minor units) for {@code orderId}. Immutable.
 */
public record ChargeRequest(String orderId, long amount) { }
