package dev.idemlab.idempotency.spring.autoconfigure;

import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spring.IdempotencyCoordinatorCustomizer;
import dev.idemlab.idempotency.spring.IdempotencyProperties;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The {@link IdempotencyCoordinator} over the store, configured from {@code idempotency.*} through
 * the library's own builders (so a bad value fails startup with the library's message naming the
 * rule), unless the application defines its own coordinator.
 */
@AutoConfiguration(after = IdempotencyStoreAutoConfiguration.class)
@EnableConfigurationProperties(IdempotencyProperties.class)
public final class IdempotencyCoordinatorAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    IdempotencyCoordinator idempotencyCoordinator(IdempotencyProperties properties,
                                                  ObjectProvider<IdempotencyStore> store,
                                                  ObjectProvider<IdempotencyCoordinatorCustomizer> customizers) {
        IdempotencyStore chosen = store.getIfUnique();
        if (chosen == null) {
            throw new IllegalStateException("no IdempotencyStore for idempotency.store=" + properties.store()
                    .name().toLowerCase(java.util.Locale.ROOT) + ": add dev.idemlab:idempotency-"
                    + properties.store().name().toLowerCase(java.util.Locale.ROOT) + " to the class path, or define "
                    + "one IdempotencyStore bean");
        }
        IdempotencyCoordinator.Builder builder = IdempotencyCoordinator.builder(chosen)
                .config(properties.coordinatorConfig());
        customizers.orderedStream().forEach(each -> each.customize(builder));
        return builder.build();
    }
}
