package dev.idemlab.idempotency.testsupport;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The in-process broker: it listens on 127.0.0.1 alone (Spring's and Kafka's test brokers bind every
 * interface, the reason it is built on {@code KafkaRaftServer}), it carries records, and closing it
 * removes its directory.
 */
class LocalKafkaTest {

    private static TestKafka kafka;

    @BeforeAll
    static void start() {
        kafka = TestKafka.startPrivate();
    }

    /** Closing the broker removes its directory: checked on the class's own broker, one start for all. */
    @AfterAll
    static void stopRemovesTheDirectory() {
        if (kafka != null) {
            Path directory = kafka.local().directory();
            kafka.close();
            assertThat(Files.exists(directory)).as("the broker's directory after close").isFalse();
        }
    }

    @Test
    void noListenerOfTheBrokerIsOnTheWildcardAddress() throws IOException {
        LocalKafka local = kafka.local();
        List<String> sockets = listeningSockets(List.of(local.port(), local.controllerPort()));
        assertThat(sockets).as("listening sockets on the broker's ports").isNotEmpty()
                .allSatisfy(socket -> assertThat(socket).as("127.0.0.1, or ::ffff:127.0.0.1 on a dual-stack socket")
                        .matches("(0100007F|0000000000000000FFFF00000100007F):[0-9A-F]{4}"));
        assertThat(sockets.stream().map(s -> Integer.parseInt(s.substring(s.indexOf(':') + 1), 16)).distinct())
                .containsExactlyInAnyOrder(local.port(), local.controllerPort());
    }

    @Test
    void aProducedRecordIsConsumed() {
        String topic = kafka.createTopic("round-trip", 1);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()),
                new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(topic, "order-42", "charge 10")).get();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "round-trip",
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
                new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            List<ConsumerRecord<String, String>> received = new ArrayList<>();
            for (int i = 0; i < 300 && received.isEmpty(); i++) {
                consumer.poll(Duration.ofMillis(100)).forEach(received::add);
            }
            assertThat(received).extracting(ConsumerRecord::key, ConsumerRecord::value)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("order-42", "charge 10"));
        }
    }

    /** A restart keeps the records and the group's committed offset: a consumer after it resumes past the committed record. */
    @Test
    void aRestartedBrokerKeepsItsRecordsAndCommittedOffsets() throws Exception {
        String topic = kafka.createTopic("restart", 1);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()),
                new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(topic, "order-1", "charge 10")).get();
            producer.send(new ProducerRecord<>(topic, "order-2", "charge 20")).get();
        }
        Map<String, Object> config = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "restart",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false",
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 1,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(),
                new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            assertThat(pollOne(consumer).key()).isEqualTo("order-1");
            consumer.commitSync();
        }
        kafka.local().restart();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(),
                new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            assertThat(pollOne(consumer).key()).as("the first record after the committed one").isEqualTo("order-2");
        }
    }

    private static ConsumerRecord<String, String> pollOne(KafkaConsumer<String, String> consumer) {
        for (int i = 0; i < 300; i++) {
            for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
                return record;
            }
        }
        throw new AssertionError("no record within 30 s");
    }

    /** The default broker is Kafka 4.1's default: share groups off (the feature {@code share.version} not finalized). */
    @Test
    void theDefaultBrokerLeavesShareGroupsOff() throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
            FinalizedVersionRange share = admin.describeFeatures().featureMetadata().get(30, TimeUnit.SECONDS)
                    .finalizedFeatures().get(LocalKafka.SHARE_VERSION_FEATURE);
            assertThat(share == null ? 0 : share.maxVersionLevel()).as("share.version").isEqualTo((short) 0);
        }
        assertThat(kafka.local().shareGroups()).isFalse();
        assertThatThrownBy(() -> kafka.local().recordLock()).hasMessageContaining("share groups are off");
    }

    @Test
    void theReportNamesTheBrokerItsVersionAndOrigin() {
        assertThat(kafka.local().directory()).isDirectory();
        assertThat(kafka.origin()).isEqualTo(ServerOrigin.IN_PROCESS);
        assertThat(kafka.version()).isEqualTo("4.1.2");
        assertThat(kafka.toString()).contains("Kafka 4.1.2", kafka.bootstrapServers(), "in-process");
    }

    @Test
    void aMalformedUrlIsRefusedNamingTheRule() {
        assertThatThrownBy(() -> TestKafka.provide("kafka://no-port"))
                .hasMessageContaining("kafka://host:port");
        assertThat(TestKafka.bootstrapServersOf("kafka://a:1,b:2/")).isEqualTo("a:1,b:2");
    }

    /** {@code local_address} of each LISTEN (state 0A) socket on {@code ports}, from /proc/net/tcp and tcp6. */
    static List<String> listeningSockets(List<Integer> ports) throws IOException {
        List<String> found = new ArrayList<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            Path path = Path.of(table);
            if (!Files.exists(path)) {
                continue;
            }
            List<String> lines = Files.readAllLines(path);
            for (String line : lines.subList(1, lines.size())) {
                String[] fields = line.trim().split("\\s+");
                String local = fields[1];
                int port = Integer.parseInt(local.substring(local.indexOf(':') + 1), 16);
                if (fields[3].equals("0A") && ports.contains(port)) {
                    found.add(local.toUpperCase(Locale.ROOT));
                }
            }
        }
        return found;
    }
}
