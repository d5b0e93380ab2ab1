package dev.idemlab.idempotency.webflux;

import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

import java.security.Principal;

/**
 * Names the client an exchange comes from, so that idempotency keys are scoped per client, as the
 * servlet filter's {@code ClientResolver} does for a servlet request: the draft's section 5 (Security
 * Considerations) warns that a key alone, chosen by clients, can collide with or be guessed from
 * another client's. Reactive because a WebFlux application learns its principal reactively
 * ({@link ServerWebExchange#getPrincipal()}, which Spring Security fills from its reactive context).
 *
 * <p>Implementations must be thread-safe, and should name what only the server knows about the
 * client (an authenticated principal, an API key's owner), never something the client merely claims.
 */
@FunctionalInterface
public interface ReactiveClientResolver {

    /** The authenticated principal's name ({@link ServerWebExchange#getPrincipal()}): the default. */
    ReactiveClientResolver PRINCIPAL = exchange -> exchange.getPrincipal().map(Principal::getName);

    /**
     * The client of {@code exchange}.
     *
     * @return a non-empty name, or an empty {@code Mono} (or an empty name) when the exchange names no client
     */
    Mono<String> clientOf(ServerWebExchange exchange);
}
