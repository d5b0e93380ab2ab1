package dev.idemlab.idempotency.spring;

import org.junit.jupiter.api.Test;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

import java.security.Principal;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The WebFlux filter's client under Spring Security, as {@link SecurityContextClients} names it for a
 * servlet request: an authenticated principal's name, never an anonymous authentication's (whose one
 * shared name would put every anonymous caller in one named client's scope), and none without a principal.
 */
class ReactiveSecurityContextClientsTest {

    private final ReactiveSecurityContextClients clients = new ReactiveSecurityContextClients();

    private static ServerWebExchange exchangeOf(Principal principal) {
        ServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.post("/orders/o-1/charge"));
        return principal == null ? exchange : exchange.mutate().principal(Mono.just(principal)).build();
    }

    @Test
    void anAuthenticatedPrincipalIsTheClient() {
        UsernamePasswordAuthenticationToken alice = UsernamePasswordAuthenticationToken.authenticated("alice", "n/a",
                AuthorityUtils.createAuthorityList("ROLE_USER"));
        assertThat(clients.clientOf(exchangeOf(alice)).block()).isEqualTo("alice");
    }

    @Test
    void anAnonymousAuthenticationNamesNoClient() {
        AnonymousAuthenticationToken anonymous = new AnonymousAuthenticationToken("key", "anonymousUser",
                AuthorityUtils.createAuthorityList("ROLE_ANONYMOUS"));
        assertThat(clients.clientOf(exchangeOf(anonymous)).blockOptional()).isEmpty();
    }

    @Test
    void anUnauthenticatedTokenNamesNoClient() {
        UsernamePasswordAuthenticationToken claimed = UsernamePasswordAuthenticationToken.unauthenticated("mallory", "x");
        assertThat(clients.clientOf(exchangeOf(claimed)).blockOptional()).isEmpty();
    }

    @Test
    void noPrincipalNamesNoClient() {
        assertThat(clients.clientOf(exchangeOf(null)).blockOptional()).isEmpty();
    }
}
