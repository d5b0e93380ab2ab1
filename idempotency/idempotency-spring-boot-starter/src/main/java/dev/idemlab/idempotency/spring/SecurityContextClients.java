package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.servlet.ClientResolver;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.security.authentication.AuthenticationTrustResolver;
import org.springframework.security.authentication.AuthenticationTrustResolverImpl;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;

/**
 * The client of a request as Spring Security authenticated it: the name of the current
 * {@link Authentication}, or {@code null} for an anonymous or unauthenticated request (which the
 * filter refuses with 401 unless the route allows anonymous clients). The filter must come after
 * Spring Security's filter chain, which sets the context; {@code idempotency.web.filter-order}
 * defaults so.
 *
 * <p>Thread-safe: the context is the request thread's.
 */
public final class SecurityContextClients implements ClientResolver {

    private final AuthenticationTrustResolver trust = new AuthenticationTrustResolverImpl();

    @Override
    public String clientOf(HttpServletRequest request) {
        Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
        if (authentication == null || !authentication.isAuthenticated() || trust.isAnonymous(authentication)) {
            return null;
        }
        return authentication.getName();
    }
}
