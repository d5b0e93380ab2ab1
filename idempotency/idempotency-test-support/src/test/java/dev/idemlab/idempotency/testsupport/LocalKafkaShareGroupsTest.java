package dev.idemlab.idempotency.testsupport;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidRecordStateException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The in-process broker with share groups on (KIP-932): the feature is finalized, it still listens on
 * 127.0.0.1 alone, and a record whose acquisition lock runs out is delivered again, to another member,
 * while the first member's late acknowledgement is refused.
 */
class LocalKafkaShareGroupsTest {

    private static final Duration LOCK = LocalKafka.MIN_RECORD_LOCK;

    private static TestKafka kafka;

    @BeforeAll
    static void start() {
        kafka = TestKafka.startPrivateWithShareGroups(LOCK);
    }

    @AfterAll
    static void stop() {
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    void shareVersionIsFinalizedAndTheLockIsTheOneAskedFor() throws Exception {
        try (Admin admin = admin()) {
            FinalizedVersionRange share = admin.describeFeatures().featureMetadata().get(30, TimeUnit.SECONDS)
                    .finalizedFeatures().get(LocalKafka.SHARE_VERSION_FEATURE);
            assertThat(share).as("share.version").isNotNull();
            assertThat(share.maxVersionLevel()).isEqualTo((short) 1);
        }
        assertThat(kafka.local().shareGroups()).isTrue();
        assertThat(kafka.local().recordLock()).isEqualTo(LOCK);
        assertThat(kafka.toString()).contains("share groups on", "record lock 1000 ms", "in-process");
    }

    @Test
    void noListenerOfTheShareGroupBrokerIsOnTheWildcardAddress() throws IOException {
        LocalKafka local = kafka.local();
        assertThat(LocalKafkaTest.listeningSockets(List.of(local.port(), local.controllerPort())))
                .isNotEmpty()
                .allSatisfy(socket -> assertThat(socket).matches("(0100007F|0000000000000000FFFF00000100007F):[0-9A-F]{4}"));
    }

    @Test
    void aLockOutsideKafkasRangeIsRefusedNamingIt() {
        assertThatThrownBy(() -> LocalKafka.startWithShareGroups(Duration.ofMillis(999)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("between 1000 ms and 60000 ms");
    }

    /** A holds the record past its lock; B is delivered it (delivery 2) and accepts it; A's late ACCEPT is refused. */
    @Test
    void aRecordWhoseLockRanOutGoesToAnotherMemberAndTheFirstAcknowledgementIsRefused() throws Exception {
        String topic = kafka.createTopic("lock-expiry", 1);
        String group = "lock-expiry";
        try (Admin admin = admin()) {
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group), List.of(
                    new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET))))
                    .all().get(30, TimeUnit.SECONDS);
        }
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()), new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(topic, "order-42", "charge 10")).get(30, TimeUnit.SECONDS);
        }
        try (KafkaShareConsumer<String, String> a = consumer(group); KafkaShareConsumer<String, String> b = consumer(group)) {
            a.subscribe(List.of(topic));
            ConsumerRecord<String, String> first = pollOne(a);
            assertThat(first.deliveryCount()).contains((short) 1);
            b.subscribe(List.of(topic));
            ConsumerRecord<String, String> second = pollOne(b); // only once A's lock ran out
            assertThat(second.offset()).isEqualTo(first.offset());
            // a redelivery: the second as a rule, a later one where a delivery in between reached no application
            assertThat(second.deliveryCount()).hasValueSatisfying(count -> assertThat(count).isGreaterThanOrEqualTo((short) 2));
            // A while B holds the record: refused. (Acknowledged after B had accepted, A's stale ACCEPT came back
            // without an error in a run here: the order matters.)
            a.acknowledge(first, AcknowledgeType.ACCEPT);
            assertThat(a.commitSync().values()).as("A's acknowledgement, after its lock ran out")
                    .singleElement().satisfies(result -> assertThat(result).get().isInstanceOf(InvalidRecordStateException.class));
            b.acknowledge(second, AcknowledgeType.ACCEPT);
            Map<TopicIdPartition, Optional<KafkaException>> accepted = b.commitSync();
            assertThat(accepted.values()).as("B's acknowledgement").singleElement().isEqualTo(Optional.empty());
        }
    }

    private static KafkaShareConsumer<String, String> consumer(String group) {
        return new KafkaShareConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, group,
                ConsumerConfig.SHARE_ACKNOWLEDGEMENT_MODE_CONFIG, "explicit"), new StringDeserializer(), new StringDeserializer());
    }

    private static ConsumerRecord<String, String> pollOne(KafkaShareConsumer<String, String> consumer) {
        for (int i = 0; i < 300; i++) {
            for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
                return record;
            }
        }
        throw new AssertionError("no record within 30 s");
    }

    private static Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()));
    }
}
