package dev.idemlab.idempotency.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks an {@link dev.idemlab.idempotency.Idempotent @Idempotent} method whose keys are global on
 * purpose: every caller, whoever is authenticated, shares them (a key the application derives itself,
 * such as an order number or a message id, rather than one a client chose). Without it, the starter
 * scopes a method's keys per principal when Spring Security is on the class path, as the servlet filter
 * scopes a route's keys per client: see {@link PrincipalScope}. Put it beside {@code @Idempotent}, or on
 * another declaration of the same method (the interface's or the implementation's).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface GlobalKey {
}
