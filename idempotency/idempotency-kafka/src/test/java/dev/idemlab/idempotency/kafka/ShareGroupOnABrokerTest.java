package dev.idemlab.idempotency.kafka;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idemlab.idempotency.testsupport.TestKafka;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidRecordStateException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The handler on a share group (KIP-932), on a real broker with share groups on: member A of the group
 * holds the charge record past its acquisition lock (here: until B's delivery met A's reservation), the
 * broker delivers it again to member B, and B's delivery meets A's reservation. Under WAIT it waits for A
 * and replays; under SKIP it is released after a backoff and replays on its next delivery. The handler
 * runs once; A's late ACCEPT is refused by the broker; B's is accepted. Acknowledgements per
 * {@link ShareAcknowledgement}.
 */
class ShareGroupOnABrokerTest {

    private static final Duration LOCK = Duration.ofSeconds(1);
    /** How long B holds an in-flight record before releasing it: a release is a delivery too. */
    private static final Duration SKIP_BACKOFF = Duration.ofMillis(200);

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

    @ParameterizedTest
    @EnumSource(RedeliveryPolicy.class)
    void aRecordDeliveredAgainWhenItsLockRanOutIsHandledOnce(RedeliveryPolicy policy) throws Exception {
        String topic = kafka.createTopic("share-" + policy, 1);
        String group = "share-charges-" + policy;
        prepare(group, topic);

        IdempotencyStore shared = new InMemoryIdempotencyStore();
        CountDownLatch bMetA = new CountDownLatch(1);
        CountDownLatch aAnswered = new CountDownLatch(1);
        List<String> runs = Collections.synchronizedList(new ArrayList<>());
        IdempotencyStore watched = new ForwardingIdempotencyStore(shared) {
            @Override
            public Reservation reserve(String namespace, String token, String fingerprint, Duration lease) {
                Reservation reservation = super.reserve(namespace, token, fingerprint, lease);
                if (reservation instanceof Reservation.Found) {
                    bMetA.countDown();
                }
                return reservation;
            }
        };
        IdempotentRecordHandler<String, String, String> a = handler(shared, policy, (record, context) -> {
            runs.add("A");
            assertThat(bMetA.await(30, TimeUnit.SECONDS)).as("B met A's reservation").isTrue();
            return "ch_1";
        });
        IdempotentRecordHandler<String, String, String> b = handler(watched, policy, (record, context) -> {
            runs.add("B");
            return "ch_" + (runs.size());
        });

        try (KafkaShareConsumer<String, String> consumerA = consumer(group);
             KafkaShareConsumer<String, String> consumerB = consumer(group)) {
            consumerA.subscribe(List.of(topic));
            ConsumerRecord<String, String> first = pollOne(consumerA);
            CompletableFuture<Map<?, Optional<KafkaException>>> aAcknowledged = CompletableFuture.supplyAsync(() -> {
                try {
                    RecordOutcome outcome = a.process(first).outcome();
                    aAnswered.countDown();
                    consumerA.acknowledge(first, ShareAcknowledgement.of(outcome));
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
                return Map.copyOf(consumerA.commitSync());
            });
            consumerB.subscribe(List.of(topic));
            List<Short> bDeliveries = new ArrayList<>();
            List<RecordOutcome> bOutcomes = new ArrayList<>();
            boolean accepted = false;
            while (!accepted && bDeliveries.size() < 4) {
                ConsumerRecord<String, String> record = pollOne(consumerB);
                bDeliveries.add(record.deliveryCount().orElseThrow());
                RecordOutcome outcome = b.process(record).outcome();
                bOutcomes.add(outcome);
                AcknowledgeType type = ShareAcknowledgement.of(outcome);
                if (type == AcknowledgeType.RELEASE) {
                    // The skip's backoff: the record held at most this long, released as soon as A has answered.
                    aAnswered.await(SKIP_BACKOFF.toMillis(), TimeUnit.MILLISECONDS);
                }
                consumerB.acknowledge(record, type);
                accepted = type == AcknowledgeType.ACCEPT
                        && consumerB.commitSync().values().stream().allMatch(Optional::isEmpty);
            }

            assertThat(runs).as("handler runs").containsExactly("A");
            assertThat(accepted).as("B's acceptance, deliveries " + bDeliveries + ", outcomes " + bOutcomes).isTrue();
            assertThat(first.deliveryCount()).contains((short) 1);
            assertThat(bDeliveries.get(0)).as("B's first delivery: a redelivery (the second as a rule), after A's lock ran out")
                    .isGreaterThanOrEqualTo((short) 2);
            assertThat(bOutcomes.get(bOutcomes.size() - 1)).isEqualTo(RecordOutcome.REPLAYED);
            if (policy == RedeliveryPolicy.SKIP) {
                assertThat(bOutcomes.get(0)).as("released while A held the key").isEqualTo(RecordOutcome.IN_FLIGHT);
            } else {
                assertThat(b.coordinator().stats().count(Outcome.WAITED)).as("B waited for A").isEqualTo(1);
            }
            assertThat(aAcknowledged.get(30, TimeUnit.SECONDS).values()).as("A's ACCEPT, after its lock ran out")
                    .singleElement().satisfies(result -> assertThat(result).get().isInstanceOf(InvalidRecordStateException.class));
        }
    }

    /** The group reads from the earliest record (a share group starts at the latest by default), then the record. */
    private static void prepare(String group, String topic) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group), List.of(
                    new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET))))
                    .all().get(30, TimeUnit.SECONDS);
        }
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()), new StringSerializer(), new StringSerializer())) {
            ProducerRecord<String, String> record = new ProducerRecord<>(topic, 0, null, "{\"order_id\":42,\"amount\":10}");
            record.headers().add(IdempotentRecordHandler.DEFAULT_KEY_HEADER, "order-42".getBytes(StandardCharsets.UTF_8));
            producer.send(record).get(30, TimeUnit.SECONDS);
        }
    }

    private static IdempotentRecordHandler<String, String, String> handler(
            IdempotencyStore store, RedeliveryPolicy policy, RecordHandler<String, String, String> work) {
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(store)
                .config(IdempotencyConfig.custom()
                        .policy(policy == RedeliveryPolicy.WAIT ? InFlightPolicy.WAIT : InFlightPolicy.RAISE)
                        .build())
                .build();
        return IdempotentRecordHandler.builder(coordinator, "payment.charge", RedeliveryOnABrokerTest.ReturnedString.CODEC, work)
                .redelivery(policy)
                .build();
    }

    private static KafkaShareConsumer<String, String> consumer(String group) {
        return new KafkaShareConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, group,
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 1,
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
}
