package dev.idemlab.idempotency;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The parameter of an {@link Idempotent} method that carries the client's idempotency key: a
 * {@code String}, exactly one per method. A {@code null} key runs the method without idempotency, as
 * {@link IdempotentCall} does.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PARAMETER)
public @interface IdempotencyKey {
}
