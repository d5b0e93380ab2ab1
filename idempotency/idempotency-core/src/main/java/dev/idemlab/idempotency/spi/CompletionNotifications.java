package dev.idemlab.idempotency.spi;

import java.util.Objects;

/**
 * An optional capability of a store: it tells its waiters when a reservation ends, completed or
 * released, so that a caller waiting for an in-flight request wakes when the holder finishes instead
 * of polling. A store that does not implement it is polled.
 *
 * <p>Notifications may be lost (a dropped connection), so a waiter keeps a slow safety poll.
 * A waiter subscribes <em>before</em> it reads the record it waits on, so that a completion between
 * the read and the subscription is never missed.
 *
 * <p>A store may say how the reservation ended ({@link Ending}): which attempt's reservation it was
 * and the record it left. A waiter that recognises the reservation it saw then has its answer without
 * reading the record again, so a hundred waiters on one key cost one notification and no lookups. A
 * store that cannot say (a result too large for its notification, a reconnect that wakes everyone)
 * sends {@link Ending#UNKNOWN}, and the waiter reads the record.
 *
 * <p>Implementations must be thread-safe; listeners may run on the store's own threads and must be
 * quick (complete a future, release a latch).
 */
public interface CompletionNotifications {

    /**
     * Calls {@code listener} each time the reservation under {@code namespace} is completed or
     * released, until the subscription is closed, with what the store knows of how it ended.
     * Registering is cheap, and by the time it returns every ending committed later is notified, so
     * that the caller's re-read after it misses nothing. It is local to the client unless the store
     * notifies only records someone waits on: it then marks the record on the server first, one
     * short round trip (PostgreSQL does); a mark that fails leaves the waiter to its safety poll.
     */
    Subscription subscribe(String namespace, Listener listener);

    /**
     * Whether this store sends notifications at all. A store that wraps another one (a
     * {@link ForwardingIdempotencyStore}) passes its notifications on and says {@code false} when the
     * store it wraps sends none; its waiters then poll.
     */
    default boolean notifying() {
        return true;
    }

    /**
     * The notifications of {@code store}, or {@code null} when it sends none (it does not implement
     * this interface, or it wraps a store that does not).
     */
    static CompletionNotifications of(IdempotencyStore store) {
        return store instanceof CompletionNotifications notifications && notifications.notifying() ? notifications : null;
    }

    /** {@link #subscribe(String, Listener)} for a listener that only needs to know that it ended. */
    default Subscription subscribe(String namespace, Runnable listener) {
        Objects.requireNonNull(listener, "listener");
        return subscribe(namespace, ending -> listener.run());
    }

    /** Told when a reservation ended. */
    @FunctionalInterface
    interface Listener {
        void ended(Ending ending);
    }

    /** A registration of one listener; closing it stops the calls. */
    interface Subscription extends AutoCloseable {
        @Override
        void close();
    }

    /** What a notification says about the reservation that ended. */
    sealed interface Ending {

        /** The store does not say: the waiter reads the record. */
        Ending UNKNOWN = new Unknown();

        /** Whether this is the end of the reservation {@code token} held; never for {@link #UNKNOWN}. */
        default boolean endedReservation(String token) {
            return false;
        }

        /** Nothing is known beyond the fact that something under the namespace ended. */
        record Unknown() implements Ending { }

        /**
         * The reservation held by {@code token} was completed into {@code record}; for a late
         * completion (the key was free) {@code token} is the completing attempt's.
         */
        record Completed(String token, IdempotencyRecord.Completed record) implements Ending {
            public Completed {
                Objects.requireNonNull(token, "token");
                Objects.requireNonNull(record, "record");
            }

            @Override
            public boolean endedReservation(String held) {
                return token.equals(held);
            }
        }

        /** The reservation held by {@code token} was released: the key is free. */
        record Released(String token) implements Ending {
            public Released {
                Objects.requireNonNull(token, "token");
            }

            @Override
            public boolean endedReservation(String held) {
                return token.equals(held);
            }
        }
    }
}
