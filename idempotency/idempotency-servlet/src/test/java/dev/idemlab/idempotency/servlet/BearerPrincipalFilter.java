package dev.idemlab.idempotency.servlet;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;

import java.io.IOException;
import java.security.Principal;

/** Test authentication: {@code Authorization: Bearer NAME} makes NAME the request's principal. */
final class BearerPrincipalFilter implements Filter {

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest http = (HttpServletRequest) request;
        String authorization = http.getHeader("Authorization");
        if (authorization == null || !authorization.startsWith("Bearer ")) {
            chain.doFilter(request, response);
            return;
        }
        Principal principal = authorization.substring("Bearer ".length())::trim;
        chain.doFilter(new HttpServletRequestWrapper(http) {
            @Override
            public Principal getUserPrincipal() {
                return principal;
            }
        }, response);
    }
}
