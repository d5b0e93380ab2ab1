package dev.idemlab.examples.payments.webflux;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

import java.security.Principal;

/**
 * The sample's stand-in for authentication: {@code Authorization: Bearer NAME} makes NAME the exchange's
 * principal, which the idempotency filter scopes keys to (a service would use Spring Security, whose
 * principal the starter reads the same way). It runs first, before the idempotency filter. Stateless.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE)
class BearerClients implements WebFilter {

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        String authorization = exchange.getRequest().getHeaders().getFirst("Authorization");
        if (authorization == null || !authorization.startsWith("Bearer ")) {
            return chain.filter(exchange);
        }
        String name = authorization.substring("Bearer ".length()).trim();
        if (name.isEmpty()) {
            return chain.filter(exchange);
        }
        Principal principal = () -> name;
        return chain.filter(exchange.mutate().principal(Mono.just(principal)).build());
    }
}
