package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.webflux.ReactiveClientResolver;
import org.springframework.security.authentication.AuthenticationTrustResolver;
import org.springframework.security.authentication.AuthenticationTrustResolverImpl;
import org.springframework.security.core.Authentication;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

import java.security.Principal;

/**
 * The client of an exchange as Spring Security authenticated it, for the WebFlux filter: the name of
 * the exchange's principal, which Spring Security's reactive filter chain sets from its security
 * context, or none for an anonymous or unauthenticated exchange (which the filter refuses with 401
 * unless the route allows anonymous clients), as {@link SecurityContextClients} does for a servlet
 * request. The filter must come after Spring Security's chain ({@code -100});
 * {@code idempotency.web.filter-order} defaults so.
 *
 * <p>Thread-safe and stateless.
 */
public final class ReactiveSecurityContextClients implements ReactiveClientResolver {

    private final AuthenticationTrustResolver trust = new AuthenticationTrustResolverImpl();

    @Override
    public Mono<String> clientOf(ServerWebExchange exchange) {
        return exchange.getPrincipal()
                .filter(principal -> !(principal instanceof Authentication authentication)
                        || (authentication.isAuthenticated() && !trust.isAnonymous(authentication)))
                .map(Principal::getName);
    }
}
