package dev.idemlab.idempotency.kafka;

import dev.idemlab.idempotency.spi.TransactionalAction;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The application's work for one record when its effect lives in the idempotency store's own database
 * (an order row, a ledger entry): the inbox. It gives, per record, an action whose transaction holds
 * both the effect and the completion of the record's key (on PostgreSQL, what
 * {@code LocalEffects.inTransaction} builds), so that the effect and "this record was handled" commit
 * together or not at all: a consumer that dies between the two leaves neither, and the redelivery runs
 * the effect once. A holder whose key was taken over (paused past its lease) completes nothing and its
 * transaction rolls back with its effect ({@code IdempotencyFencedException}).
 *
 * <pre>{@code
 * LocalEffects local = LocalEffects.of(store);
 * IdempotentRecordHandler<String, String, Long> inbox = IdempotentRecordHandler.inbox(coordinator,
 *         "order.create", ResultCodec.json(Long.class),
 *         record -> local.inTransaction((connection, context) -> orders.insert(connection, record.value())))
 *     .build();
 * }</pre>
 *
 * <p>Only writes through the connection the action is handed are covered; a remote call made inside
 * it is not undone by a rollback: give it the context's downstream key.
 *
 * @param <K> the record's key type
 * @param <V> the record's value type
 * @param <T> the result stored for replays
 */
@FunctionalInterface
public interface TransactionalRecordHandler<K, V, T> {

    /** The action that handles {@code record} in the store's transaction; called once per delivery. */
    TransactionalAction<T, ? extends Exception> actionFor(ConsumerRecord<K, V> record);
}
