package dev.idemlab.idempotency.servlet;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;

import java.net.URI;

/** The routes the conformance tests put behind the filter, on the in-memory store. */
final class Routes {

    static final URI DOCS = URI.create("https://docs.example.test/idempotency");

    private Routes() { }

    static IdempotencyCoordinator coordinator(IdempotencyStore store, InFlightPolicy policy) {
        return IdempotencyCoordinator.builder(store)
                .config(IdempotencyConfig.custom().policy(policy).build())
                .build();
    }

    /** The draft's defaults: a key required, 409 for a concurrent request. */
    static IdempotentRoute.Builder charge() {
        return charge(new InMemoryIdempotencyStore(), InFlightPolicy.RAISE);
    }

    static IdempotentRoute.Builder charge(IdempotencyStore store, InFlightPolicy policy) {
        return IdempotentRoute.custom("payment.charge", coordinator(store, policy))
                .documentation(DOCS)
                .allowWaiting(policy == InFlightPolicy.WAIT);
    }
}
