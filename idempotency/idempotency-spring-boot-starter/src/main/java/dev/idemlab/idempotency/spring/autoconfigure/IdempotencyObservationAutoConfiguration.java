package dev.idemlab.idempotency.spring.autoconfigure;

import dev.idemlab.idempotency.spring.IdempotencyCoordinatorCustomizer;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Observes the coordinator's calls through the application's {@link ObservationRegistry}, when
 * Micrometer's Observation API is on the class path and the application has a registry (Actuator
 * makes one): each call is {@code idempotency.call} with its reserve, wait, action, complete and
 * release as children, tagged with the operation, the store and the outcome, never the key (see
 * {@code IdempotencyCoordinator.Builder.observationRegistry}). Spring Boot turns them into timers and,
 * with a tracer, spans, so a request's trace shows where its time went. Without a registry nothing
 * is registered and the coordinator observes nothing.
 */
@AutoConfiguration(before = IdempotencyCoordinatorAutoConfiguration.class,
        afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnClass(ObservationRegistry.class)
public final class IdempotencyObservationAutoConfiguration {

    @Bean
    @ConditionalOnBean(ObservationRegistry.class)
    @ConditionalOnMissingBean(name = "idempotencyObservations")
    IdempotencyCoordinatorCustomizer idempotencyObservations(ObjectProvider<ObservationRegistry> registry) {
        return builder -> {
            ObservationRegistry unique = registry.getIfUnique();
            if (unique != null) {
                builder.observationRegistry(unique);
            }
        };
    }
}
