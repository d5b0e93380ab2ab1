package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.lab.policy.ResultCacheCoordinator;

/**
 * Builds the coordinator a scenario puts under test. The lab uses the library's (and its own result
 * cache for RUN); the regression gate's own tests pass a broken one to prove that {@code lab check}
 * can fail.
 */
@FunctionalInterface
public interface CoordinatorFactory {

    /**
     * The library's coordinator, as a team would build it, under WAIT or RAISE; the lab's result cache
     * under RUN.
     */
    CoordinatorFactory LIBRARY = (store, policy, config) -> policy == LabPolicy.RUN
            ? new ResultCacheCoordinator(store, config)
            : IdempotencyCoordinator.builder(store).config(config.toBuilder().policy(policy.library()).build()).build();

    /**
     * @param config lease, ttl and store-failure mode; its in-flight policy is replaced by {@code policy}
     */
    IdempotencyCoordinator create(IdempotencyStore store, LabPolicy policy, IdempotencyConfig config);
}
