package dev.idemlab.idempotency.kafka;

import dev.idemlab.idempotency.IdempotencyKeyReuseException;
import dev.idemlab.idempotency.IdempotentReplayUnavailableException;
import org.apache.kafka.clients.consumer.AcknowledgeType;

import java.util.Objects;

/**
 * What a share consumer (KIP-932: {@code KafkaShareConsumer} in explicit acknowledgement mode,
 * {@code share.acknowledgement.mode=explicit}) acknowledges a record with, once
 * {@link IdempotentRecordHandler#process} answered or threw. A share group hands each record to one
 * member at a time under an acquisition lock and delivers it again when the lock runs out, so a second
 * member can be given a record while the first still handles it: the handler's reservation makes that
 * delivery wait or skip, as it does after a rebalance.
 *
 * <ul>
 *   <li>{@link RecordOutcome#HANDLED}, {@link RecordOutcome#REPLAYED}, {@link RecordOutcome#BYPASSED}:
 *   {@link AcknowledgeType#ACCEPT}. A member whose lock ran out while it handled the record is refused
 *   ({@code InvalidRecordStateException} in what {@code commitSync} returns): the record has gone to
 *   another member, whose delivery replays.</li>
 *   <li>{@link RecordOutcome#IN_FLIGHT} (SKIP, or a WAIT that ran out): {@link AcknowledgeType#RELEASE},
 *   so that the record is delivered again; never ACCEPT, which would settle a record nobody finished.</li>
 *   <li>A handler that threw, or a store the coordinator could not reach under FAIL_CLOSED: RELEASE (the
 *   failure is not stored; the next delivery runs the handler again).</li>
 *   <li>A record that breaks a rule ({@link InvalidRecordException}) or reuses a key with another payload
 *   ({@link IdempotencyKeyReuseException}): {@link AcknowledgeType#REJECT}. No delivery of it can succeed;
 *   the broker archives it, and the application that wants it kept copies it aside first.</li>
 *   <li>A record whose key an earlier delivery completed but whose stored result cannot be replayed
 *   ({@link IdempotentReplayUnavailableException}): ACCEPT. It was handled; the handler is never run again
 *   for it, so releasing it would only spend its deliveries until the broker archived it.</li>
 * </ul>
 *
 * <p>Every delivery counts, a released one too: after {@code group.share.delivery.count.limit} deliveries
 * (5 by default) the broker archives the record, handled or not. A member that releases an in-flight record
 * at once takes it back at once and spends those deliveries in milliseconds; it should hold the record for
 * a backoff before releasing it, so that the first handling ends within the deliveries left (see
 * {@code ConsumerRecord#deliveryCount()}). Stateless and thread-safe.
 */
public final class ShareAcknowledgement {

    private ShareAcknowledgement() { }

    /**
     * The acknowledgement of a delivery that {@link IdempotentRecordHandler} answered with {@code outcome}.
     *
     * @return ACCEPT for an acknowledging outcome, RELEASE for {@link RecordOutcome#IN_FLIGHT}
     */
    public static AcknowledgeType of(RecordOutcome outcome) {
        Objects.requireNonNull(outcome, "outcome");
        return outcome.acknowledged() ? AcknowledgeType.ACCEPT : AcknowledgeType.RELEASE;
    }

    /**
     * The acknowledgement of a delivery whose handling threw {@code failure}.
     *
     * @return REJECT for a record no delivery can handle (an {@link InvalidRecordException}, an
     *     {@link IdempotencyKeyReuseException}), ACCEPT for one already handled whose result cannot be
     *     replayed ({@link IdempotentReplayUnavailableException}), RELEASE for any other failure
     */
    public static AcknowledgeType ofFailure(Exception failure) {
        Objects.requireNonNull(failure, "failure");
        if (failure instanceof IdempotentReplayUnavailableException) {
            return AcknowledgeType.ACCEPT;
        }
        return failure instanceof InvalidRecordException || failure instanceof IdempotencyKeyReuseException
                ? AcknowledgeType.REJECT : AcknowledgeType.RELEASE;
    }
}
