package dev.idemlab.idempotency.spring;

/** A request to charge an order. */
public record ChargeRequest(String orderId, long amount) { }
