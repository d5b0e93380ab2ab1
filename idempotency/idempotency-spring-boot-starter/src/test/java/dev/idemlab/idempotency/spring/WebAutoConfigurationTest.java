package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.InvalidIdempotencyConfigException;
import dev.idemlab.idempotency.servlet.ClientResolver;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyCoordinatorAutoConfiguration;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyStoreAutoConfiguration;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyWebAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/** The filter's registration for the routes named in properties, and where the client scope comes from. */
class WebAutoConfigurationTest {

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(IdempotencyStoreAutoConfiguration.class,
                    IdempotencyCoordinatorAutoConfiguration.class, IdempotencyWebAutoConfiguration.class))
            .withPropertyValues("idempotency.policy=raise",
                    "idempotency.web.routes[0].operation=orders.create",
                    "idempotency.web.routes[0].url-patterns=/orders,/orders/*",
                    "idempotency.web.routes[0].documentation=https://api.example.com/docs/idempotency");

    @Test
    void eachNamedRouteGetsAFilterRegistrationOnItsPatterns() {
        runner.run(context -> {
            IdempotencyFilterRegistrations filters = context.getBean(IdempotencyFilterRegistrations.class);
            assertThat(filters.registrations()).hasSize(1);
            assertThat(filters.registrations().get(0).getUrlPatterns()).containsExactly("/orders", "/orders/*");
            assertThat(filters.registrations().get(0).getFilter().route().operation()).isEqualTo("orders.create");
            assertThat(filters.getOrder()).isZero();
        });
    }

    @Test
    void withSpringSecurityTheClientIsTheAuthenticatedPrincipal() {
        runner.run(context -> assertThat(context.getBean(ClientResolver.class)).isInstanceOf(SecurityContextClients.class));
    }

    @Test
    void withoutSpringSecurityTheClientIsTheServletPrincipal() {
        runner.withClassLoader(new FilteredClassLoader("org.springframework.security"))
                .run(context -> assertThat(context.getBean(ClientResolver.class)).isSameAs(ClientResolver.PRINCIPAL));
    }

    @Test
    void theApplicationsOwnClientResolverReplacesTheDefault() {
        ClientResolver byApiKey = request -> request.getHeader("X-Api-Key");
        runner.withBean(ClientResolver.class, () -> byApiKey)
                .run(context -> assertThat(context.getBean(IdempotencyFilterRegistrations.class).registrations().get(0)
                        .getFilter().route().clients()).isSameAs(byApiKey));
    }

    @Test
    void aRouteUnderTheWaitPolicyThatDoesNotOptInFailsStartupWithTheLibrarysRule() {
        runner.withPropertyValues("idempotency.policy=wait").run(context -> {
            assertThat(context).hasFailed();
            Throwable cause = StoreAutoConfigurationTest.rootCause(context.getStartupFailure());
            assertThat(cause).isInstanceOf(InvalidIdempotencyConfigException.class);
            assertThat(((InvalidIdempotencyConfigException) cause).setting()).isEqualTo("allowWaiting");
        });
    }

    @Test
    void aRouteThatRequiresAKeyWithoutDocumentationFailsStartupWithTheLibrarysRule() {
        runner.withPropertyValues("idempotency.web.routes[0].documentation=").run(context -> {
            assertThat(context).hasFailed();
            Throwable cause = StoreAutoConfigurationTest.rootCause(context.getStartupFailure());
            assertThat(((InvalidIdempotencyConfigException) cause).setting()).isEqualTo("documentation");
        });
    }

    @Test
    void aRouteWithoutUrlPatternsFailsStartupSayingSo() {
        runner.withPropertyValues("idempotency.web.routes[0].url-patterns=").run(context -> {
            assertThat(context).hasFailed();
            assertThat(StoreAutoConfigurationTest.rootCause(context.getStartupFailure()))
                    .hasMessageContaining("names no url-patterns");
        });
    }

    @Test
    void outsideAServletApplicationNoFilterIsRegistered() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(IdempotencyStoreAutoConfiguration.class,
                        IdempotencyCoordinatorAutoConfiguration.class, IdempotencyWebAutoConfiguration.class))
                .run(context -> assertThat(context).doesNotHaveBean(IdempotencyFilterRegistrations.class));
    }

    @Test
    void webEnabledFalseRegistersNoFilterThoughRoutesAreNamed() {
        runner.withPropertyValues("idempotency.web.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(IdempotencyFilterRegistrations.class));
    }
}
