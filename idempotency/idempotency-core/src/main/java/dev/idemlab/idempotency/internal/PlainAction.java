package dev.idemlab.idempotency.internal;

import dev.idemlab.idempotency.ContextualAction;
import dev.idemlab.idempotency.IdempotencyContext;
import dev.idemlab.idempotency.IdempotentAction;

/**
 * An {@link IdempotentAction} seen as a {@link ContextualAction} that ignores its context, so that the
 * coordinator knows it need not build one. Immutable and thread-safe if the action is.
 */
record PlainAction<T, E extends Exception>(IdempotentAction<T, E> action) implements ContextualAction<T, E> {

    @Override
    public T run(IdempotencyContext context) throws E {
        return action.run();
    }
}
