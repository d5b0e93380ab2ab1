package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.servlet.ClientResolver;
import dev.idemlab.idempotency.servlet.IdempotencyFilter;
import dev.idemlab.idempotency.servlet.IdempotentRoute;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.web.servlet.ServletContextInitializer;
import org.springframework.core.Ordered;

import java.util.ArrayList;
import java.util.List;

/**
 * One {@link FilterRegistrationBean} of an {@link IdempotencyFilter} per route of
 * {@code idempotency.web.routes}, each mapped to its URL patterns, all at the order
 * {@code idempotency.web.filter-order}. The routes are built (and checked, by the library's
 * {@link IdempotentRoute.Builder}) when this is made, so a bad route fails startup naming the rule.
 *
 * <p>Routes named by properties only: a route's operation, paths and key rules are the API's
 * contract, which reads better in one place than spread over controller annotations.
 *
 * <p>Immutable after construction and thread-safe.
 */
public final class IdempotencyFilterRegistrations implements ServletContextInitializer, Ordered {

    private final List<FilterRegistrationBean<IdempotencyFilter>> registrations;
    private final int order;

    /**
     * Registrations for {@code web}'s routes, run by {@code coordinator}, scoped per client by {@code clients}.
     *
     * @throws dev.idemlab.idempotency.InvalidIdempotencyConfigException naming the route's setting and rule
     * @throws IllegalStateException when a route names no URL pattern
     */
    public IdempotencyFilterRegistrations(IdempotencyProperties.Web web, IdempotencyCoordinator coordinator,
                                          ClientResolver clients) {
        List<FilterRegistrationBean<IdempotencyFilter>> all = new ArrayList<>();
        for (IdempotencyProperties.Route route : web.routes()) {
            FilterRegistrationBean<IdempotencyFilter> registration =
                    new FilterRegistrationBean<>(new IdempotencyFilter(WebRoutes.routeOf(route, coordinator)
                            .clients(clients).build()));
            registration.setName("idempotencyFilter." + route.operation());
            registration.setUrlPatterns(route.urlPatterns());
            registration.setOrder(web.filterOrder());
            all.add(registration);
        }
        this.registrations = List.copyOf(all);
        this.order = web.filterOrder();
    }

    /** The registrations, one per route, in the order of the properties. */
    public List<FilterRegistrationBean<IdempotencyFilter>> registrations() {
        return registrations;
    }

    @Override
    public void onStartup(ServletContext servletContext) throws ServletException {
        for (FilterRegistrationBean<IdempotencyFilter> registration : registrations) {
            registration.onStartup(servletContext);
        }
    }

    @Override
    public int getOrder() {
        return order;
    }
}
