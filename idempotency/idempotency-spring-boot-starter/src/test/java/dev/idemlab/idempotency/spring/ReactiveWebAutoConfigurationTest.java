package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.InvalidIdempotencyConfigException;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyCoordinatorAutoConfiguration;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyReactiveWebAutoConfiguration;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyStoreAutoConfiguration;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyWebAutoConfiguration;
import dev.idemlab.idempotency.webflux.ReactiveClientResolver;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * In a reactive application the same {@code idempotency.web.routes} become WebFlux filters: one per
 * route, on the paths a servlet container would map, at the filter order, with the client from Spring
 * Security's principal (or the exchange's, or the application's own resolver); and a servlet
 * application gets none of them.
 */
class ReactiveWebAutoConfigurationTest {

    private final ReactiveWebApplicationContextRunner runner = new ReactiveWebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(IdempotencyStoreAutoConfiguration.class,
                    IdempotencyCoordinatorAutoConfiguration.class, IdempotencyWebAutoConfiguration.class,
                    IdempotencyReactiveWebAutoConfiguration.class))
            .withPropertyValues("idempotency.policy=raise",
                    "idempotency.web.filter-order=5",
                    "idempotency.web.routes[0].operation=orders.create",
                    "idempotency.web.routes[0].url-patterns=/orders,/orders/*",
                    "idempotency.web.routes[0].max-body-bytes=2048",
                    "idempotency.web.routes[0].documentation=https://api.example.com/docs/idempotency");

    @Test
    void eachNamedRouteGetsAWebFilterOnThePathsAServletContainerWouldMap() {
        runner.run(context -> {
            assertThat(context).doesNotHaveBean(IdempotencyFilterRegistrations.class);
            IdempotencyWebFilters filters = context.getBean(IdempotencyWebFilters.class);
            assertThat(filters.filters()).singleElement().satisfies(filter -> {
                assertThat(filter.route().operation()).isEqualTo("orders.create");
                assertThat(filter.route().maxBodyBytes()).isEqualTo(2048);
                assertThat(filter.paths()).extracting(Object::toString).containsExactly("/orders", "/orders/**");
            });
            assertThat(filters.getOrder()).isEqualTo(5);
        });
    }

    @Test
    void withSpringSecurityTheClientIsTheAuthenticatedPrincipal() {
        runner.run(context -> assertThat(context.getBean(ReactiveClientResolver.class))
                .isInstanceOf(ReactiveSecurityContextClients.class));
    }

    @Test
    void withoutSpringSecurityTheClientIsTheExchangesPrincipal() {
        runner.withClassLoader(new FilteredClassLoader("org.springframework.security"))
                .run(context -> assertThat(context.getBean(ReactiveClientResolver.class))
                        .isSameAs(ReactiveClientResolver.PRINCIPAL));
    }

    @Test
    void theApplicationsOwnClientResolverReplacesTheDefault() {
        ReactiveClientResolver byApiKey = exchange -> Mono.justOrEmpty(
                exchange.getRequest().getHeaders().getFirst("X-Api-Key"));
        runner.withBean(ReactiveClientResolver.class, () -> byApiKey)
                .run(context -> assertThat(context.getBean(ReactiveClientResolver.class)).isSameAs(byApiKey));
    }

    @Test
    void anExtensionPatternFailsStartupNamingIt() {
        runner.withPropertyValues("idempotency.web.routes[0].url-patterns=*.json").run(context -> {
            assertThat(context).hasFailed();
            assertThat(StoreAutoConfigurationTest.rootCause(context.getStartupFailure()))
                    .hasMessageContaining("url-pattern *.json");
        });
    }

    @Test
    void aRouteUnderTheWaitPolicyThatDoesNotOptInFailsStartupWithTheLibrarysRule() {
        runner.withPropertyValues("idempotency.policy=wait").run(context -> {
            assertThat(context).hasFailed();
            Throwable cause = StoreAutoConfigurationTest.rootCause(context.getStartupFailure());
            assertThat(((InvalidIdempotencyConfigException) cause).setting()).isEqualTo("allowWaiting");
        });
    }

    @Test
    void aServletApplicationGetsNoWebFilter() {
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(IdempotencyStoreAutoConfiguration.class,
                        IdempotencyCoordinatorAutoConfiguration.class, IdempotencyReactiveWebAutoConfiguration.class))
                .withPropertyValues("idempotency.policy=raise")
                .run(context -> assertThat(context).doesNotHaveBean(IdempotencyWebFilters.class));
    }

    @Test
    void webEnabledFalseAddsNoWebFilterThoughRoutesAreNamed() {
        runner.withPropertyValues("idempotency.web.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(IdempotencyWebFilters.class));
    }
}
