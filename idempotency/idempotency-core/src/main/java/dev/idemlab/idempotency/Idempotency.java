package dev.idemlab.idempotency;

import dev.idemlab.idempotency.internal.IdempotentProxy;

import java.util.Objects;

/** Entry points for the annotation API: {@link Idempotent} methods without any framework. */
public final class Idempotency {

    private Idempotency() { }

    /**
     * An implementation of {@code type} that runs each {@link Idempotent} method of {@code target}
     * through {@code coordinator}, and every other method straight on {@code target}.
     *
     * @throws IllegalArgumentException naming the method and the rule, when {@code type} is not an
     *     interface, or an {@link Idempotent} method has no or several {@link IdempotencyKey}
     *     parameters, a key that is not a {@code String}, a fingerprint entry that names no parameter
     *     (or parameters whose names were not compiled in), a path into a record or bean that it lacks,
     *     or a return type whose result cannot be stored ({@code void}, a type with type parameters);
     *     and, on a public {@code type}, any method that returns or throws a type that is not public (the
     *     JDK's proxy of a public interface lives in another package and could not name it: the first call
     *     would fail with {@code IllegalAccessError}; a package-private interface may use such types)
     */
    public static <T> T proxy(Class<T> type, T target, IdempotencyCoordinator coordinator) {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(coordinator, "coordinator");
        return IdempotentProxy.create(type, target, coordinator);
    }
}
