package dev.idemlab.idempotency.spring.autoconfigure;

import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.spring.IdempotencyProperties;
import dev.idemlab.idempotency.spring.IdempotencyWebFilters;
import dev.idemlab.idempotency.spring.ReactiveSecurityContextClients;
import dev.idemlab.idempotency.webflux.IdempotencyWebFilter;
import dev.idemlab.idempotency.webflux.ReactiveClientResolver;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@link IdempotencyWebFilter} for each route of {@code idempotency.web.routes}, in a reactive web
 * application that has {@code idempotency-webflux}: the same properties the servlet filter reads
 * ({@link IdempotencyWebAutoConfiguration}), the same rules. Keys are scoped per client: by Spring
 * Security's authenticated principal when Spring Security is on the class path, else by the
 * exchange's principal (the library's default); an application's own {@link ReactiveClientResolver}
 * bean replaces both. {@code idempotency.web.enabled=false} adds none, as for the servlet filter.
 */
@AutoConfiguration(after = IdempotencyCoordinatorAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnBooleanProperty(name = "idempotency.web.enabled", matchIfMissing = true)
@ConditionalOnClass(IdempotencyWebFilter.class)
@EnableConfigurationProperties(IdempotencyProperties.class)
public final class IdempotencyReactiveWebAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    IdempotencyWebFilters idempotencyWebFilters(IdempotencyProperties properties, IdempotencyCoordinator coordinator,
                                                ReactiveClientResolver clients) {
        return new IdempotencyWebFilters(properties.web(), coordinator, clients);
    }

    /** With Spring Security: the authenticated principal, never an anonymous one. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.security.core.Authentication")
    static final class SecurityClients {

        @Bean
        @ConditionalOnMissingBean
        ReactiveClientResolver idempotencyReactiveClients() {
            return new ReactiveSecurityContextClients();
        }
    }

    /** Without it: the exchange's principal. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingClass("org.springframework.security.core.Authentication")
    static final class PrincipalClients {

        @Bean
        @ConditionalOnMissingBean
        ReactiveClientResolver idempotencyReactiveClients() {
            return ReactiveClientResolver.PRINCIPAL;
        }
    }
}
