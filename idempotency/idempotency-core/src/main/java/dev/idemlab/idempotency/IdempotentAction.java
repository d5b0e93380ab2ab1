package dev.idemlab.idempotency;

/**
 * The work an idempotency key protects, such as a card charge.
 *
 * @param <T> its result
 * @param <E> the checked exception it may throw, or {@link RuntimeException}
 */
@FunctionalInterface
public interface IdempotentAction<T, E extends Exception> {

    /** Runs the work once. */
    T run() throws E;
}
