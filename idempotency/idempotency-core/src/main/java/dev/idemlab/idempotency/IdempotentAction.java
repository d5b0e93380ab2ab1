package dev.idemlab.idempotency;

/**
 * The work an idempotency key protects, such as a card charge, when it does not need the call's
 * {@link IdempotencyContext}. It is a {@link ContextualAction} that ignores its context, so the
 * coordinator runs it as one without wrapping it, and knows it need not build a context for it.
 *
 * @param <T> its result
 * @param <E> the checked exception it may throw, or {@link RuntimeException}
 */
@FunctionalInterface
public interface IdempotentAction<T, E extends Exception> extends ContextualAction<T, E> {

    /** Runs the work once. */
    T run() throws E;

    /** Runs the work once; the context is not needed. */
    @Override
    default T run(IdempotencyContext context) throws E {
        return run();
    }
}
