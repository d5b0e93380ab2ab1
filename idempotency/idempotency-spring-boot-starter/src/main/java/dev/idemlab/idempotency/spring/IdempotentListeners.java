package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.IdempotencyInProgressException;
import dev.idemlab.idempotency.IdempotencyKeyReuseException;
import dev.idemlab.idempotency.InvalidIdempotencyKeyException;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.util.backoff.FixedBackOff;

import java.time.Duration;
import java.util.Objects;

/**
 * What an {@code @Idempotent} {@code @KafkaListener} method needs of its container's error handler.
 * A record redelivered while its first delivery is still being handled (after a rebalance gave it to
 * this consumer) meets the first one's reservation, and the method answers
 * {@link IdempotencyInProgressException} (under {@code InFlightPolicy.RAISE}, or when a WAIT ran out).
 * Spring Kafka's default error handler retries a failed record ten times without a pause and then
 * gives it up, committing its offset: if the first delivery then failed, nothing would ever handle the
 * record. {@link #retryInFlight} makes such a record be retried, after a pause each time, for as long
 * as it is in flight, and its offset is never committed meanwhile; the next delivery after the first
 * completed replays its result. A key reused with another payload, or one that breaks the key rule, is
 * not retried: it goes to the handler's recoverer at once (a dead-letter topic where the service has
 * one). Other failures keep the handler's own back-off.
 *
 * <p>The starter applies it to the {@link DefaultErrorHandler} it defines when the service defines no
 * {@code CommonErrorHandler}; a service with an error handler of its own applies it there.
 */
public final class IdempotentListeners {

    private IdempotentListeners() { }

    /**
     * Makes {@code handler} retry a record whose first delivery is in flight every {@code pause}, for as
     * long as it stays in flight, and give up at once on a key that cannot work. Replaces the handler's
     * back-off function.
     *
     * @return {@code handler}
     */
    public static DefaultErrorHandler retryInFlight(DefaultErrorHandler handler, Duration pause) {
        Objects.requireNonNull(handler, "handler");
        if (pause == null || pause.isNegative() || pause.isZero()) {
            throw new IllegalArgumentException("the pause between the retries of a record in flight must be "
                    + "positive, got " + pause);
        }
        long millis = Math.max(1, pause.toMillis());
        handler.setBackOffFunction((record, failure) -> inFlight(failure)
                ? new FixedBackOff(millis, FixedBackOff.UNLIMITED_ATTEMPTS) : null);
        handler.addNotRetryableExceptions(IdempotencyKeyReuseException.class, InvalidIdempotencyKeyException.class);
        // a record that stops being in flight and fails is retried afresh under the handler's own back-off
        handler.setResetStateOnExceptionChange(true);
        return handler;
    }

    /** Whether {@code failure}, or what caused it (the container wraps the listener's), says "in flight". */
    static boolean inFlight(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof IdempotencyInProgressException) {
                return true;
            }
        }
        return false;
    }
}
