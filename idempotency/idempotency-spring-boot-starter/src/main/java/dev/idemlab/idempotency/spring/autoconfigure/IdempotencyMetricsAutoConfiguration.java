package dev.idemlab.idempotency.spring.autoconfigure;

import dev.idemlab.idempotency.spring.IdempotencyCoordinatorCustomizer;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Publishes the coordinator's counters ({@code idempotency.calls{store,outcome}},
 * {@code idempotency.storage.errors{store,phase}}, ...) to the application's {@link MeterRegistry},
 * when Micrometer is on the class path and the application has one registry (Actuator makes it). The
 * key never goes into a tag.
 */
@AutoConfiguration(before = IdempotencyCoordinatorAutoConfiguration.class, afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"})
@ConditionalOnClass(MeterRegistry.class)
public final class IdempotencyMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "idempotencyMeters")
    IdempotencyCoordinatorCustomizer idempotencyMeters(ObjectProvider<MeterRegistry> registry) {
        return builder -> {
            MeterRegistry unique = registry.getIfUnique();
            if (unique != null) {
                builder.meterRegistry(unique);
            }
        };
    }
}
