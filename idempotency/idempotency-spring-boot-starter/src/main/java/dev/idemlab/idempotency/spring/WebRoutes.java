package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.servlet.IdempotentRoute;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/**
 * The library's route for one route of {@code idempotency.web.routes}, for both filters: the servlet
 * filter's registrations and the WebFlux filters read the same properties the same way, so a route
 * means one thing whichever stack serves it. Stateless.
 */
final class WebRoutes {

    private WebRoutes() { }

    /**
     * The route's builder from its properties, the client resolver still to be named (a servlet one, or
     * none for WebFlux, whose filter names its own).
     *
     * @throws IllegalStateException when the route names no operation or no URL pattern
     */
    static IdempotentRoute.Builder routeOf(IdempotencyProperties.Route route, IdempotencyCoordinator coordinator) {
        if (route.operation() == null) {
            throw new IllegalStateException("idempotency.web.routes: a route needs an operation");
        }
        if (route.urlPatterns() == null || route.urlPatterns().isEmpty()) {
            throw new IllegalStateException("idempotency.web.routes: the route of operation " + route.operation()
                    + " names no url-patterns, so it would guard nothing");
        }
        IdempotentRoute.Builder builder = IdempotentRoute.custom(route.operation(), coordinator)
                .methods(route.methods().toArray(String[]::new))
                .keyRequired(route.keyRequired())
                .allowAnonymousClients(route.allowAnonymous())
                .allowWaiting(route.allowWaiting())
                .replayedHeaders(route.replayedHeaders().toArray(String[]::new))
                .fingerprintedHeaders(route.fingerprintedHeaders().toArray(String[]::new))
                .maxBodyBytes(route.maxBodyBytes());
        if (route.documentation() != null && !route.documentation().isEmpty()) {
            builder.documentation(URI.create(route.documentation()));
        }
        return builder;
    }

    /**
     * The route's servlet URL patterns as Spring path patterns, guarding what a servlet container maps:
     * {@code /orders} stays exact, {@code /orders/*} (everything under {@code /orders}) becomes
     * {@code /orders/**}, {@code /*} becomes {@code /**}. An extension pattern ({@code *.json}) has no
     * path pattern that matches the same requests, so it is refused.
     *
     * @throws IllegalStateException naming the pattern that cannot be translated
     */
    static List<String> pathPatterns(IdempotencyProperties.Route route) {
        List<String> paths = new ArrayList<>();
        for (String pattern : route.urlPatterns()) {
            if (pattern.endsWith("/*")) {
                paths.add(pattern.substring(0, pattern.length() - 1) + "**");
            } else if (pattern.startsWith("/") && !pattern.contains("*")) {
                paths.add(pattern);
            } else {
                throw new IllegalStateException("idempotency.web.routes: the route of operation " + route.operation()
                        + " names url-pattern " + pattern + ", which a WebFlux application cannot map: use an exact "
                        + "path (/orders) or a path prefix (/orders/*)");
            }
        }
        return paths;
    }
}
