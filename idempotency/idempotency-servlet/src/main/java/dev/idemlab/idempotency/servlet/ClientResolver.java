package dev.idemlab.idempotency.servlet;

import jakarta.servlet.http.HttpServletRequest;

import java.security.Principal;

/**
 * Names the client a request comes from, so that idempotency keys are scoped per client: the
 * draft's section 5 (Security Considerations) warns that a key alone, chosen by clients, can
 * collide with or be guessed from another client's. The filter stores a record under the operation,
 * the client and the key together, so client B sending client A's key never gets A's stored response.
 *
 * <p>Implementations must be thread-safe, and should name what only the server knows about the
 * client (an authenticated principal, an API key's owner), never something the client merely claims.
 */
@FunctionalInterface
public interface ClientResolver {

    /** The authenticated principal's name ({@link HttpServletRequest#getUserPrincipal()}): the default. */
    ClientResolver PRINCIPAL = request -> {
        Principal principal = request.getUserPrincipal();
        return principal == null ? null : principal.getName();
    };

    /**
     * The client of {@code request}.
     *
     * @return a non-empty name, or {@code null} when the request names no client
     */
    String clientOf(HttpServletRequest request);
}
