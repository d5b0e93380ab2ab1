package dev.idemlab.idempotency.internal;

import dev.idemlab.idempotency.IdempotencyInProgressException;
import dev.idemlab.idempotency.IdempotencyKeyReuseException;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotentReplayUnavailableException;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Completed;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Pending;
import dev.idemlab.idempotency.spi.StoredResult;

/**
 * What a record the store holds answers a caller who did not get the key, shared by {@code call} and
 * {@code callAsync}: a completed record is replayed (with the same fingerprint only), another request's
 * record is refused as key reuse, an identical request in flight is refused under RAISE and waited for
 * under WAIT, and the end of a wait is a replay or a 409. Every answer is counted. Thread-safe.
 */
final class Replays {

    private final InFlightPolicy policy;
    private final CoordinatorCounters counters;
    private final RetryAfterHint retryAfter;

    Replays(InFlightPolicy policy, CoordinatorCounters counters, RetryAfterHint retryAfter) {
        this.policy = policy;
        this.counters = counters;
        this.retryAfter = retryAfter;
    }

    /**
     * What a record the reserve found answers without waiting: the replay of a completed one (as
     * {@code waited} says, after a wait or not); for a reservation of the same request, in progress
     * under RAISE, and {@code null} under WAIT: the caller waits for it.
     *
     * @throws IdempotencyKeyReuseException when the record is another request's
     * @throws IdempotencyInProgressException under RAISE
     */
    <T> IdempotentResult<T> answerFound(IdempotentCall call, IdempotencyRecord found, ResultCodec<T> codec,
                                        boolean waited) {
        if (found instanceof Completed completed) {
            return replay(call, completed, codec, waited ? Outcome.WAITED : Outcome.REPLAYED);
        }
        Pending pending = (Pending) found;
        requireSameFingerprint(call, pending);
        if (policy == InFlightPolicy.RAISE) {
            counters.outcome(Outcome.IN_PROGRESS);
            throw new IdempotencyInProgressException(call.operation(), call.key(),
                    retryAfter.forLeaseRemaining(pending.leaseRemaining()));
        }
        return null;
    }

    /**
     * What the end of a wait answers: the replay of the holder's result, or in progress at the
     * deadline; {@code null} when the caller contends for the key again.
     *
     * @throws IdempotencyInProgressException when the wait gave up
     */
    <T> IdempotentResult<T> waitEnded(IdempotentCall call, WaitForHolder.Step end, ResultCodec<T> codec) {
        if (end instanceof WaitForHolder.Replay replay) {
            return replay(call, replay.record(), codec, Outcome.WAITED);
        }
        if (end instanceof WaitForHolder.GiveUp gaveUp) {
            counters.outcome(Outcome.IN_PROGRESS);
            throw gaveUp.inProgress();
        }
        return null;
    }

    <T> IdempotentResult<T> replay(IdempotentCall call, Completed completed, ResultCodec<T> codec,
                                           Outcome outcome) {
        requireSameFingerprint(call, completed);
        StoredResult result = completed.result();
        if (!result.isStored()) {
            counters.outcome(Outcome.REPLAY_UNAVAILABLE);
            throw new IdempotentReplayUnavailableException(call.operation(), call.key(), result.notStoredReason(), null);
        }
        T value;
        try {
            value = codec.decode(result.json());
        } catch (RuntimeException e) {
            counters.outcome(Outcome.REPLAY_UNAVAILABLE);
            throw new IdempotentReplayUnavailableException(call.operation(), call.key(),
                    "the stored result cannot be decoded: " + e.getMessage(), e);
        }
        counters.outcome(outcome);
        return new IdempotentResult<>(value, outcome);
    }

    void requireSameFingerprint(IdempotentCall call, IdempotencyRecord record) {
        String requested = call.fingerprint().hex();
        if (!record.fingerprint().equals(requested)) {
            counters.outcome(Outcome.KEY_REUSE);
            throw new IdempotencyKeyReuseException(call.operation(), call.key(), record.fingerprint(), requested,
                    record instanceof Pending);
        }
    }
}
