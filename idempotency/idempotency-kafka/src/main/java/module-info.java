/**
 * The Kafka consumer adapter: a record handler run through the idempotency coordinator, and the poll
 * loop that commits only the offsets of records whose handling has finished. Its implementation
 * ({@code dev.idemlab.idempotency.kafka.internal}) is not exported.
 *
 * <p>Needs {@code kafka-clients} (the application's consumer) and the core; nothing else.
 */
module dev.idemlab.idempotency.kafka {
    requires transitive dev.idemlab.idempotency.core;
    requires transitive kafka.clients;

    exports dev.idemlab.idempotency.kafka;
}
