package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.spi.IdempotencyStore;

/**
 * Builds the coordinator a scenario puts under test. The lab uses the library's; the regression
 * gate's own tests pass a broken one to prove that {@code lab check} can fail.
 */
@FunctionalInterface
public interface CoordinatorFactory {

    /** The library's coordinator, as a team would build it. */
    CoordinatorFactory LIBRARY = (store, config) -> IdempotencyCoordinator.builder(store).config(config).build();

    IdempotencyCoordinator create(IdempotencyStore store, IdempotencyConfig config);
}
