package dev.idemlab.idempotency.kafka;

import dev.idemlab.idempotency.IdempotencyContext;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The application's work for one record: the charge a "charge order 42" record asks for. Its result
 * is stored under the record's key and replayed to a redelivery; pass {@link IdempotencyContext#downstreamKey()}
 * to a provider that deduplicates, and {@link IdempotencyContext#fence()} to a resource that refuses
 * stale holders.
 *
 * @param <K> the record's key type
 * @param <V> the record's value type
 * @param <T> the result stored for replays
 */
@FunctionalInterface
public interface RecordHandler<K, V, T> {

    /**
     * Handles the record once.
     *
     * @throws Exception anything: nothing is stored, the record is not acknowledged, and its next
     *     delivery runs the handler again
     */
    T handle(ConsumerRecord<K, V> record, IdempotencyContext context) throws Exception;
}
