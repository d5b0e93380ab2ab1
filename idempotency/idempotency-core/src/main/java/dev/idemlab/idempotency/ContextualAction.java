package dev.idemlab.idempotency;

/**
 * The work an idempotency key protects, given the call's {@link IdempotencyContext}: pass its
 * fencing number and downstream key on to the provider.
 *
 * @param <T> its result
 * @param <E> the checked exception it may throw, or {@link RuntimeException}
 */
@FunctionalInterface
public interface ContextualAction<T, E extends Exception> {

    /** Runs the work once. */
    T run(IdempotencyContext context) throws E;
}
