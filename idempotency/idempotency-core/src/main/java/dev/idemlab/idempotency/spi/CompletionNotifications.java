package dev.idemlab.idempotency.spi;

/**
 * An optional capability of a store: it tells its waiters when a reservation ends, completed or
 * released, so that a caller waiting for an in-flight request wakes when the holder finishes instead
 * of polling. A store that does not implement it is polled.
 *
 * <p>Notifications may be lost (a dropped connection), so a waiter keeps a slow safety poll.
 * A waiter subscribes <em>before</em> it reads the record it waits on, so that a completion between
 * the read and the subscription is never missed.
 *
 * <p>Implementations must be thread-safe; listeners may run on the store's own threads and must be
 * quick (complete a future, release a latch).
 */
public interface CompletionNotifications {

    /**
     * Calls {@code listener} each time the reservation under {@code namespace} is completed or
     * released, until the subscription is closed. Registering is local and cheap: it never waits on
     * the server.
     */
    Subscription subscribe(String namespace, Runnable listener);

    /** A registration of one listener; closing it stops the calls. */
    interface Subscription extends AutoCloseable {
        @Override
        void close();
    }
}
