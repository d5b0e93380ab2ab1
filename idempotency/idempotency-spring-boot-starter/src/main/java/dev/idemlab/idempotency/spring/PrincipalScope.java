package dev.idemlab.idempotency.spring;

import org.springframework.security.authentication.AuthenticationTrustResolver;
import org.springframework.security.authentication.AuthenticationTrustResolverImpl;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Scopes an {@code @Idempotent} method's keys per principal, as the servlet filter scopes a route's keys
 * per client: one caller's key can neither block another caller's request nor replay its result. The
 * principal is the name of Spring Security's current {@link Authentication} on the calling thread, when it
 * is authenticated and not anonymous; its scope is the method's operation followed by {@code .c-} and the
 * first 32 hex digits of the SHA-256 of that name (35 characters, which is why a scoped method's
 * operation may have at most {@value #LONGEST_OPERATION}). The core's call has no notion of a principal
 * and its keys may already be 255 characters long, so the scope goes into the operation, and the key stays
 * the caller's own.
 *
 * <p>A call with no authenticated principal (no {@code Authentication}, an anonymous one, a thread of its
 * own such as a scheduler's) keeps the operation unchanged: every such caller shares that one scope, which
 * is exactly what the method had before scoping existed. It is told apart from every principal's scope
 * by construction, not by a reserved name: a principal's scoped operation is always 35 characters longer
 * than the unscoped one, so no principal's name, {@code anonymous} included, can reach the anonymous
 * callers' records. Methods marked {@link GlobalKey} are not scoped at all. Without Spring Security on
 * the class path this class is never loaded, and every key is global, as before.
 *
 * <p>Stateless and thread-safe: the context is the calling thread's.
 */
final class PrincipalScope {

    /** The longest operation that a principal's scope still keeps within the core's 100 characters. */
    static final int LONGEST_OPERATION = 100 - 35;

    private static final AuthenticationTrustResolver TRUST = new AuthenticationTrustResolverImpl();

    private PrincipalScope() { }

    /**
     * The operation of the calling thread's principal for {@code operation}, or {@code operation}
     * itself when no principal is authenticated.
     */
    static String operationOf(String operation) {
        Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
        if (authentication == null || !authentication.isAuthenticated() || TRUST.isAnonymous(authentication)) {
            return operation;
        }
        String name = authentication.getName() == null ? "" : authentication.getName();
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8));
            return operation + ".c-" + HexFormat.of().formatHex(digest, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
