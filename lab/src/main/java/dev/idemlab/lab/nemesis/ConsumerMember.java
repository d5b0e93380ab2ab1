package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.StoreFailureMode;
import dev.idemlab.idempotency.Ticker;
import dev.idemlab.idempotency.kafka.IdempotentConsumer;
import dev.idemlab.idempotency.kafka.IdempotentRecordHandler;
import dev.idemlab.idempotency.kafka.RecordResult;
import dev.idemlab.idempotency.kafka.RedeliveryPolicy;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.PaymentProvider;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One member of the consumer nemesis's group: a poll loop on the topic of charge records, through the
 * Kafka adapter ({@link IdempotentConsumer} and {@link IdempotentRecordHandler}, WAIT, failing closed) on
 * the run's store, charging the run's provider with the coordinator's downstream key; or, under a
 * sabotage, a loop that breaks what the adapter keeps. Every step goes to {@code history} as a
 * {@link ConsumerEvent} line: deliveries begun, charges, deliveries finished, and each commit it asks of
 * the broker (read off the consumer itself, whoever calls it: the adapter's poll or its revocation
 * listener). Runs in a child JVM ({@link ConsumerMemberMain}) or on a thread of the lab's. Not
 * thread-safe but for {@link #stop()}.
 */
final class ConsumerMember {

    /** The operation the records' keys are reserved under. */
    static final String OPERATION = "consumer.charge";
    private static final ResultCodec<Charge> CHARGE = ResultCodec.json(Charge.class);
    private static final Pattern VALUE = Pattern.compile(
            "\\{\"order_id\":\"([^\"]+)\",\"amount\":(\\d+),\"action_ms\":(\\d+)}");

    /** What one member is told: where, who, and how the group's timeouts are set. */
    record Settings(String bootstrapServers, String topic, String group, Duration lease, int sessionTimeoutMs,
                    int maxPollIntervalMs, Sabotage sabotage) { }

    private final String name;
    private final Settings settings;
    private final Consumer<String> history;
    private final WatchedConsumer consumer;
    private final IdempotencyCoordinator coordinator;
    private final PaymentProvider provider;
    private volatile boolean running = true;

    ConsumerMember(String name, Settings settings, IdempotencyStore store, PaymentProvider provider,
                   Consumer<String> history) {
        this.name = name;
        this.settings = settings;
        this.history = history;
        this.provider = provider;
        this.coordinator = IdempotencyCoordinator.builder(store).config(IdempotencyConfig.custom()
                .policy(InFlightPolicy.WAIT).lease(settings.lease()).waitTimeout(settings.lease().multipliedBy(2))
                .storeFailureMode(StoreFailureMode.FAIL_CLOSED).build()).build();
        this.consumer = new WatchedConsumer(config(settings, name), name, history);
    }

    /** A member's consumer settings: manual commits, the group's session and poll interval, bounded blocking calls. */
    static Map<String, Object> config(Settings settings, String name) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, settings.group());
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, settings.group() + "-" + name);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        config.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, settings.sessionTimeoutMs());
        config.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, Math.max(100, settings.sessionTimeoutMs() / 10));
        config.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, settings.maxPollIntervalMs());
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 20);
        config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 50);
        // a commit or a position lookup while the broker restarts fails after this, rather than Kafka's 60 s
        config.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5000);
        config.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 4000);
        IdempotentConsumer.requireManualCommits(config);
        return config;
    }

    /** Polls until {@link #stop()}, then closes the consumer (leaving the group). */
    void run() {
        try {
            switch (settings.sabotage()) {
                case COMMIT_FIRST -> commitFirst();
                case BARE_HANDLER -> bare();
                default -> adapter();
            }
        } catch (WakeupException stopped) {
            // stop() woke the poll
        } finally {
            consumer.close(Duration.ofSeconds(1)); // leaves the group; its commits were made by the loop
        }
    }

    /** Stops the loop from another thread: its poll returns at once. */
    void stop() {
        running = false;
        consumer.wakeup();
    }

    /** The adapter's handler: the key from the header, the fingerprint from the order and amount, WAIT. */
    private IdempotentRecordHandler<String, String, Charge> handler() {
        return IdempotentRecordHandler
                .builder(coordinator, OPERATION, CHARGE, (ConsumerRecord<String, String> record,
                                                          dev.idemlab.idempotency.IdempotencyContext context) ->
                        charge(record, context.downstreamKey()))
                .redelivery(RedeliveryPolicy.WAIT)
                .fingerprintFields("order_id", "amount")
                .valueReader(value -> {
                    Matcher fields = fields(value);
                    event('B', fields.group(1), -1, -1, null);
                    return Map.of("order_id", fields.group(1), "amount", Long.parseLong(fields.group(2)));
                })
                .build();
    }

    private void adapter() {
        IdempotentRecordHandler<String, String, Charge> handler = handler();
        IdempotentConsumer<String, String> loop = IdempotentConsumer.of(consumer, handler, Duration.ofMillis(50),
                Ticker.system());
        loop.observe((record, result) -> finished(record, result));
        loop.subscribe(List.of(settings.topic()));
        while (running) {
            loop.poll(Duration.ofMillis(50)).failures().forEach(failure ->
                    event('E', "-", failure.partition().partition(), failure.offset(),
                            failure.failure().getClass().getSimpleName() + ": " + failure.failure().getMessage()));
        }
    }

    /**
     * Sabotage: the adapter's handler, but every record polled is committed before it is handled (what
     * auto-commit does, in effect); a record that fails or is in flight elsewhere is not retried.
     */
    private void commitFirst() {
        IdempotentRecordHandler<String, String, Charge> handler = handler();
        consumer.subscribeQuietly(settings.topic());
        while (running) {
            ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(50));
            Map<TopicPartition, OffsetAndMetadata> positions = new HashMap<>();
            for (ConsumerRecord<String, String> record : records) {
                positions.put(new TopicPartition(record.topic(), record.partition()), new OffsetAndMetadata(record.offset() + 1));
            }
            if (!positions.isEmpty()) {
                try {
                    consumer.commitSync(positions);
                } catch (org.apache.kafka.common.KafkaException refused) {
                    // the group moved on: its records go to another member
                }
            }
            for (ConsumerRecord<String, String> record : records) {
                try {
                    RecordResult<Charge> result = handler.process(record);
                    finished(record, result);
                } catch (Exception e) {
                    event('E', keyOf(record.value()), record.partition(), record.offset(), e.toString());
                }
            }
        }
    }

    /**
     * Sabotage: the handler without the adapter (handle, then commit that record), as a team writes it: a
     * record sent twice, or redelivered, charges again. Each record is committed as it is handled: a batch
     * committed whole after a slow record outlived the poll interval is refused every time, and the
     * member handles (and charges) the same batch again and again.
     */
    private void bare() {
        consumer.subscribeQuietly(settings.topic());
        while (running) {
            for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(50))) {
                String key = keyOf(record.value());
                event('B', key, -1, -1, null);
                charge(record, null);
                event('F', key, record.partition(), record.offset(), "HANDLED");
                try {
                    consumer.commitSync(Map.of(new TopicPartition(record.topic(), record.partition()),
                            new OffsetAndMetadata(record.offset() + 1)));
                } catch (org.apache.kafka.common.KafkaException refused) {
                    // the group moved on: its records go to another member, which charges them again
                }
            }
        }
    }

    /** The record's work: its action's time (some outlive the poll interval), then the charge. */
    private Charge charge(ConsumerRecord<String, String> record, String downstreamKey) {
        Matcher fields = fields(record.value());
        long actionMillis = Long.parseLong(fields.group(3));
        if (actionMillis > 0) {
            try {
                Thread.sleep(actionMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted before the charge", e);
            }
        }
        Charge charge = provider.charge(fields.group(1), Long.parseLong(fields.group(2)), downstreamKey);
        event('H', fields.group(1), record.partition(), record.offset(), charge.id());
        return charge;
    }

    private void finished(ConsumerRecord<String, String> record, RecordResult<?> result) {
        if (result.outcome().acknowledged()) {
            event('F', keyOf(record.value()), record.partition(), record.offset(), result.outcome().name());
        }
    }

    private void event(char kind, String key, int partition, long offset, String detail) {
        history.accept(new ConsumerEvent(kind, ConsumerEvent.now(), name, key, partition, offset, detail).line());
    }

    /** A record's value as the producer writes it (see {@link ConsumerWorkload}). */
    static String value(String key, long amount, long actionMillis) {
        return "{\"order_id\":\"" + key + "\",\"amount\":" + amount + ",\"action_ms\":" + actionMillis + "}";
    }

    static String keyOf(String value) {
        return fields(value).group(1);
    }

    private static Matcher fields(String value) {
        Matcher matcher = VALUE.matcher(value == null ? "" : value);
        if (!matcher.matches()) {
            throw new IllegalArgumentException("not a charge record of the nemesis: " + value);
        }
        return matcher;
    }

    /** The member's consumer, every commit it is asked for written to the history before it is sent. */
    private static final class WatchedConsumer extends KafkaConsumer<String, String> {

        private final String name;
        private final Consumer<String> history;

        WatchedConsumer(Map<String, Object> config, String name, Consumer<String> history) {
            super(config, new StringDeserializer(), new StringDeserializer());
            this.name = name;
            this.history = history;
        }

        void subscribeQuietly(String topic) {
            subscribe(List.of(topic));
        }

        @Override
        public void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
            commitSync(offsets, null);
        }

        @Override
        public void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets, Duration timeout) {
            long at = ConsumerEvent.now();
            String outcome = "ok";
            try {
                if (timeout == null) {
                    super.commitSync(offsets);
                } else {
                    super.commitSync(offsets, timeout);
                }
            } catch (RuntimeException e) {
                outcome = "failed: " + e.getClass().getSimpleName();
                throw e;
            } finally {
                for (Map.Entry<TopicPartition, OffsetAndMetadata> entry : offsets.entrySet()) {
                    history.accept(new ConsumerEvent('C', at, name, null, entry.getKey().partition(),
                            entry.getValue().offset(), outcome).line());
                }
            }
        }
    }
}
