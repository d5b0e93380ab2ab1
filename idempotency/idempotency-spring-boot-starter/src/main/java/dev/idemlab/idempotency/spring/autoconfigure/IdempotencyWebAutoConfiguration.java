package dev.idemlab.idempotency.spring.autoconfigure;

import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.servlet.ClientResolver;
import dev.idemlab.idempotency.servlet.IdempotencyFilter;
import dev.idemlab.idempotency.spring.IdempotencyFilterRegistrations;
import dev.idemlab.idempotency.spring.IdempotencyProperties;
import dev.idemlab.idempotency.spring.SecurityContextClients;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@link IdempotencyFilter} for each route of {@code idempotency.web.routes}, in a servlet web
 * application that has {@code idempotency-servlet}. Keys are scoped per client: by Spring Security's
 * authenticated principal when Spring Security is on the class path, else by the servlet request's
 * principal (the library's default); an application's own {@link ClientResolver} bean replaces both.
 * {@code idempotency.web.enabled=false} registers none, routes or not: the same service without the
 * filter, as a comparison of its cost needs it.
 */
@AutoConfiguration(after = IdempotencyCoordinatorAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnBooleanProperty(name = "idempotency.web.enabled", matchIfMissing = true)
@ConditionalOnClass({IdempotencyFilter.class, FilterRegistrationBean.class})
@EnableConfigurationProperties(IdempotencyProperties.class)
public final class IdempotencyWebAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    IdempotencyFilterRegistrations idempotencyFilterRegistrations(IdempotencyProperties properties,
                                                                  IdempotencyCoordinator coordinator,
                                                                  ClientResolver clients) {
        return new IdempotencyFilterRegistrations(properties.web(), coordinator, clients);
    }

    /** With Spring Security: the authenticated principal. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.security.core.context.SecurityContextHolder")
    static final class SecurityClients {

        @Bean
        @ConditionalOnMissingBean
        ClientResolver idempotencyClients() {
            return new SecurityContextClients();
        }
    }

    /** Without it: the servlet request's principal. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingClass("org.springframework.security.core.context.SecurityContextHolder")
    static final class PrincipalClients {

        @Bean
        @ConditionalOnMissingBean
        ClientResolver idempotencyClients() {
            return ClientResolver.PRINCIPAL;
        }
    }
}
