package dev.idemlab.lab.http;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;

import java.io.IOException;
import java.security.Principal;

/**
 * The demo's client authentication, as simple as it can be: {@code Authorization: Bearer client-a}
 * makes {@code client-a} the request's principal, which the idempotency filter scopes keys by. A
 * request without a bearer token has no principal. Not an authentication scheme for anything real:
 * it is there to show per-client scoping. Thread-safe.
 */
final class BearerClients implements Filter {

    private static final String PREFIX = "Bearer ";

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest http = (HttpServletRequest) request;
        String authorization = http.getHeader("Authorization");
        String client = authorization != null && authorization.regionMatches(true, 0, PREFIX, 0, PREFIX.length())
                ? authorization.substring(PREFIX.length()).trim() : "";
        if (client.isEmpty()) {
            chain.doFilter(request, response);
            return;
        }
        Principal principal = new ClientPrincipal(client);
        chain.doFilter(new HttpServletRequestWrapper(http) {
            @Override
            public Principal getUserPrincipal() {
                return principal;
            }

            @Override
            public String getAuthType() {
                return "Bearer";
            }
        }, response);
    }

    private record ClientPrincipal(String getName) implements Principal { }
}
