package dev.idemlab.idempotency.kafka;

import dev.idemlab.idempotency.testsupport.TestKafka;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The tests' broker and the clients they build on it: one broker per test class, closed after it. */
final class KafkaFixture implements AutoCloseable {

    final TestKafka kafka = TestKafka.provide();
    private final Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()));

    /** Sends {@code value} to partition 0 of {@code topic}, with the key header when {@code key} is not null. */
    void send(String topic, String key, String value) {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()),
                new StringSerializer(), new StringSerializer())) {
            ProducerRecord<String, String> record = new ProducerRecord<>(topic, 0, null, value);
            if (key != null) {
                record.headers().add(IdempotentRecordHandler.DEFAULT_KEY_HEADER, key.getBytes(StandardCharsets.UTF_8));
            }
            producer.send(record).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("cannot send to " + topic, e);
        }
    }

    /** A consumer of {@code group} that commits nothing itself, as the adapter needs. */
    KafkaConsumer<String, String> consumer(String group, Map<String, Object> extra) {
        Map<String, Object> config = new HashMap<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, group,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false"));
        config.putAll(extra);
        IdempotentConsumer.requireManualCommits(config);
        return new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer());
    }

    /** The group's committed offset of partition 0 of {@code topic}, or -1 when it committed none. */
    long committed(String group, String topic) {
        try {
            Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            OffsetAndMetadata offset = offsets.get(new TopicPartition(topic, 0));
            return offset == null ? -1 : offset.offset();
        } catch (Exception e) {
            throw new AssertionError("cannot read the offsets of " + group, e);
        }
    }

    @Override
    public void close() {
        admin.close();
        kafka.close();
    }
}
