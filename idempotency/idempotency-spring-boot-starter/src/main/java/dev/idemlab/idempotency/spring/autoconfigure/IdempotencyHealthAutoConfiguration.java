package dev.idemlab.idempotency.spring.autoconfigure;

import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spring.IdempotencyStoreHealthIndicator;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code idempotency} health indicator: whether the store answers. It is in no health group by
 * default, readiness included: under the default {@code fail-open} a dead store does not stop the
 * service from serving (the coordinator runs actions anyway, and counts it), so taking the instance
 * out of the load balancer for it would turn a degraded service into a dead one. A service that runs
 * {@code fail-closed} may add it: {@code management.endpoint.health.group.readiness.include=readinessState,idempotency}.
 */
@AutoConfiguration(after = IdempotencyStoreAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnEnabledHealthIndicator("idempotency")
public final class IdempotencyHealthAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "idempotencyHealthIndicator")
    IdempotencyStoreHealthIndicator idempotencyHealthIndicator(ObjectProvider<IdempotencyStore> store) {
        return new IdempotencyStoreHealthIndicator(store);
    }
}
