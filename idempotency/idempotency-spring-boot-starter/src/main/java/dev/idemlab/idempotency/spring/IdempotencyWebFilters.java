package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.webflux.IdempotencyWebFilter;
import dev.idemlab.idempotency.webflux.ReactiveClientResolver;
import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

import java.util.ArrayList;
import java.util.List;

/**
 * The reactive counterpart of {@link IdempotencyFilterRegistrations}: one {@link IdempotencyWebFilter}
 * per route of {@code idempotency.web.routes}, on the route's {@code url-patterns} read as a servlet
 * container maps them ({@code /orders/*} guards everything under {@code /orders}), all at the order
 * {@code idempotency.web.filter-order}, after Spring Security's reactive filter chain ({@code -100}).
 * One WebFilter bean runs the routes' filters in the order of the properties, each passing through what
 * it does not guard, as the servlet filters mapped to one request do. The routes are built and checked
 * when this is made, so a bad route fails startup naming the rule.
 *
 * <p>Immutable after construction and thread-safe.
 */
public final class IdempotencyWebFilters implements WebFilter, Ordered {

    private final List<IdempotencyWebFilter> filters;
    private final int order;

    /**
     * Filters for {@code web}'s routes, run by {@code coordinator}, scoped per client by {@code clients}.
     *
     * @throws dev.idemlab.idempotency.InvalidIdempotencyConfigException naming the route's setting and rule
     * @throws IllegalStateException when a route names no URL pattern, or one WebFlux cannot map
     */
    public IdempotencyWebFilters(IdempotencyProperties.Web web, IdempotencyCoordinator coordinator,
                                 ReactiveClientResolver clients) {
        List<IdempotencyWebFilter> all = new ArrayList<>();
        for (IdempotencyProperties.Route route : web.routes()) {
            all.add(IdempotencyWebFilter.custom(WebRoutes.routeOf(route, coordinator).build())
                    .paths(WebRoutes.pathPatterns(route).toArray(String[]::new))
                    .clients(clients)
                    .build());
        }
        this.filters = List.copyOf(all);
        this.order = web.filterOrder();
    }

    /** The filters, one per route, in the order of the properties. */
    public List<IdempotencyWebFilter> filters() {
        return filters;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        return filter(0, exchange, chain);
    }

    private Mono<Void> filter(int index, ServerWebExchange exchange, WebFilterChain chain) {
        if (index == filters.size()) {
            return chain.filter(exchange);
        }
        return filters.get(index).filter(exchange, next -> filter(index + 1, next, chain));
    }

    @Override
    public int getOrder() {
        return order;
    }
}
