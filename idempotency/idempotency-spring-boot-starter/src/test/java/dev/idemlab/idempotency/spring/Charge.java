package dev.idemlab.idempotency.spring;

/** What a charge returns, stored and replayed as JSON. */
public record Charge(String id, String orderId, long amount, String downstreamKey) { }
