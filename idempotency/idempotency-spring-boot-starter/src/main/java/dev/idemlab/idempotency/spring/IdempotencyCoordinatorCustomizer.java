package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.IdempotencyCoordinator;

/**
 * Adjusts the builder of the coordinator the starter makes, before it is built: the metrics
 * auto-configuration gives it the application's {@code MeterRegistry} this way, and an application
 * may add its own (a ticker in a test). Applied in {@code @Order}; implementations must not keep the
 * builder, which is not thread-safe.
 */
@FunctionalInterface
public interface IdempotencyCoordinatorCustomizer {

    /** Adjusts {@code builder}. */
    void customize(IdempotencyCoordinator.Builder builder);
}
