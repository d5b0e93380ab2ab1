package dev.idemlab.idempotency.webflux;

import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.InvalidIdempotencyConfigException;
import dev.idemlab.idempotency.servlet.IdempotentRoute;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import org.junit.jupiter.api.Test;

import java.net.URI;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The builder refuses what the WebFlux filter cannot honour, naming the rule, at startup rather than per request. */
class IdempotencyWebFilterBuilderTest {

    private final IdempotentRoute.Builder route = IdempotentRoute.custom("payment.charge",
            IdempotencyCoordinator.builder(new InMemoryIdempotencyStore()).build())
            .documentation(URI.create("https://docs.example.test/idempotency")).allowWaiting(true);

    @Test
    void aFilterGuardsAtLeastOnePath() {
        assertThatThrownBy(() -> IdempotencyWebFilter.custom(route.build()).build())
                .isInstanceOf(InvalidIdempotencyConfigException.class)
                .hasMessageContaining("name at least one path pattern");
    }

    @Test
    void aServletClientResolverIsRefusedForItCannotReadAnExchange() {
        IdempotentRoute withServletClients = route.clients(request -> request.getHeader("X-Tenant")).build();
        assertThatThrownBy(() -> IdempotencyWebFilter.custom(withServletClients).paths("/orders/**").build())
                .isInstanceOf(InvalidIdempotencyConfigException.class)
                .hasMessageContaining("ReactiveClientResolver");
    }

    @Test
    void aMalformedPathPatternIsRefused() {
        assertThatThrownBy(() -> IdempotencyWebFilter.custom(route.build()).paths("/orders/{id").build())
                .isInstanceOf(InvalidIdempotencyConfigException.class)
                .hasMessageContaining("Spring path patterns");
    }

    @Test
    void theFilterKeepsItsRouteAndPaths() {
        IdempotencyWebFilter filter = IdempotencyWebFilter.custom(route.build()).paths("/orders/**", "/refunds").build();
        assertThat(filter.route().operation()).isEqualTo("payment.charge");
        assertThat(filter.paths()).extracting(Object::toString).containsExactly("/orders/**", "/refunds");
    }
}
