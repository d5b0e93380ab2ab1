package dev.idemlab.idempotency.kafka;

/**
 * How one delivery of a record ended, with the handler's result: fresh when the handler ran, the
 * stored one on a replay, {@code null} when the record was not acknowledged ({@link RecordOutcome#IN_FLIGHT}).
 *
 * @param outcome how the delivery ended
 * @param value the handler's result, or {@code null}
 * @param <T> the handler's result type
 */
public record RecordResult<T>(RecordOutcome outcome, T value) {

    /** A delivery skipped while its first one is being handled. */
    static <T> RecordResult<T> inFlight() {
        return new RecordResult<>(RecordOutcome.IN_FLIGHT, null);
    }
}
