package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.Idempotent;
import dev.idemlab.idempotency.IdempotencyKey;
import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyAspectAutoConfiguration;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyCoordinatorAutoConfiguration;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyKafkaAutoConfiguration;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyStoreAutoConfiguration;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idemlab.idempotency.testsupport.TestKafka;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Payload;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * {@code @Idempotent} on a {@code @KafkaListener} method, on a real broker: the record is redelivered
 * to this consumer while its first delivery (consumer A, here a call of the same bean on another
 * thread) is still inside the method. Under {@code InFlightPolicy.RAISE} the delivery answers "in
 * flight". With the starter's error handler it is retried, past the ten tries after which Spring Kafka's
 * default gives a record up, and its offset is not committed until A completed; then it replays, and
 * the method ran once. With Spring Kafka's default handler (a service's own), the record is given up and
 * committed while A still runs: had A then failed, no delivery would ever have handled it.
 */
class IdempotentKafkaListenerTest {

    private static final String KEY = "order-42";
    private static final String ORDER = "{\"order_id\":42,\"amount\":10}";

    private static TestKafka kafka;
    private static Admin admin;

    @BeforeAll
    static void startBroker() {
        kafka = TestKafka.provide();
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()));
    }

    @AfterAll
    static void stopBroker() {
        if (admin != null) {
            admin.close();
        }
        if (kafka != null) {
            kafka.close();
        }
    }

    private static ApplicationContextRunner runner(String topic) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, KafkaAutoConfiguration.class,
                        IdempotencyStoreAutoConfiguration.class, IdempotencyCoordinatorAutoConfiguration.class,
                        IdempotencyAspectAutoConfiguration.class, IdempotencyKafkaAutoConfiguration.class))
                .withUserConfiguration(ChargeListening.class)
                .withPropertyValues("spring.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
                        "spring.kafka.consumer.auto-offset-reset=earliest",
                        "spring.kafka.consumer.group-id=" + topic + "-group",
                        "idempotency.policy=raise", "test.topic=" + topic);
    }

    @Test
    void aRecordMetInFlightIsRetriedUntilItsFirstDeliveryCompletedAndThenReplayed() {
        String topic = kafka.createTopic("in-flight", 1);
        runner(topic).run(context -> {
            assertThat(context).hasSingleBean(CommonErrorHandler.class).hasBean("idempotencyKafkaErrorHandler");
            Charges charges = context.getBean(Charges.class);
            Thread a = startFirstDelivery(charges);
            send(topic);

            ChargeListening probe = context.getBean(ChargeListening.class);
            await().atMost(Duration.ofSeconds(60)).until(() -> probe.inFlight.get() > 12);
            assertThat(committed(topic)).as("nothing committed while A holds the key").isEqualTo(-1);

            charges.finishFirstDelivery();
            a.join(TimeUnit.SECONDS.toMillis(30));
            await().atMost(Duration.ofSeconds(30)).until(() -> committed(topic) == 1);
            assertThat(charges.runs()).as("the method ran once: A's delivery; the redelivery replayed").isEqualTo(1);
        });
    }

    @Test
    void springKafkasDefaultHandlerGivesTheRecordUpAndCommitsItWhileItsFirstDeliveryRuns() {
        String topic = kafka.createTopic("given-up", 1);
        runner(topic).withBean("servicesOwnErrorHandler", CommonErrorHandler.class, DefaultErrorHandler::new)
                .run(context -> {
                    assertThat(context).doesNotHaveBean("idempotencyKafkaErrorHandler");
                    Charges charges = context.getBean(Charges.class);
                    Thread a = startFirstDelivery(charges);
                    send(topic);

                    await().atMost(Duration.ofSeconds(60)).until(() -> committed(topic) == 1);
                    assertThat(a.isAlive()).as("A still inside the method as the record was committed").isTrue();
                    charges.finishFirstDelivery();
                    a.join(TimeUnit.SECONDS.toMillis(30));
                });
    }

    @Test
    void withoutSpringKafkaNothingIsDefinedAndAPauseThatCannotWorkIsRefused() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(IdempotencyKafkaAutoConfiguration.class))
                .withClassLoader(new FilteredClassLoader(DefaultErrorHandler.class))
                .run(context -> assertThat(context).doesNotHaveBean("idempotencyKafkaErrorHandler"));
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(IdempotencyKafkaAutoConfiguration.class))
                .withPropertyValues("idempotency.kafka.in-flight-retry=0s")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("the pause between the retries of a record in flight must be positive"));
        assertThatThrownBy(() -> IdempotentListeners.retryInFlight(new DefaultErrorHandler(), Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** A's delivery of the record: a call through the advised bean, on a thread of its own, held inside it. */
    private static Thread startFirstDelivery(Charges charges) {
        Thread a = new Thread(() -> {
            try {
                charges.charge(KEY, ORDER, 99, null); // another offset, no consumer: neither is fingerprinted
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "consumer-a");
        charges.holdInside(a);
        a.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> charges.runs() == 1);
        return a;
    }

    private static void send(String topic) {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()),
                new StringSerializer(), new StringSerializer())) {
            ProducerRecord<String, String> record = new ProducerRecord<>(topic, 0, null, ORDER);
            record.headers().add("Idempotency-Key", KEY.getBytes(StandardCharsets.UTF_8));
            producer.send(record).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("cannot send to " + topic, e);
        }
    }

    /** The group's committed offset of partition 0 of {@code topic}, or -1 when it committed none. */
    private static long committed(String topic) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(topic + "-group")
                .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
        OffsetAndMetadata offset = offsets.get(new TopicPartition(topic, 0));
        return offset == null ? -1 : offset.offset();
    }

    @Configuration(proxyBeanMethods = false)
    static class ChargeListening {

        /** Reservations that met another delivery's: each is one delivery answered "in flight". */
        final AtomicInteger inFlight = new AtomicInteger();

        @Bean
        IdempotencyStore idempotencyStore() {
            return new ForwardingIdempotencyStore(new InMemoryIdempotencyStore()) {
                @Override
                public Reservation reserve(String namespace, String token, String fingerprint, Duration lease) {
                    Reservation reservation = super.reserve(namespace, token, fingerprint, lease);
                    if (reservation instanceof Reservation.Found) {
                        inFlight.incrementAndGet();
                    }
                    return reservation;
                }
            };
        }

        @Bean
        Charges charges() {
            return new Charges();
        }
    }

    /**
     * The listener: the charge a record asks for, counted; A's delivery held inside it until released. It
     * takes the record's offset and the consumer too, which differ between deliveries (and the consumer
     * cannot be read as JSON): only the payload is fingerprinted, so the redelivery is A's request again.
     */
    public static class Charges {

        private final AtomicInteger runs = new AtomicInteger();
        private final CountDownLatch release = new CountDownLatch(1);
        private volatile Thread first;

        @KafkaListener(topics = "${test.topic}")
        @Idempotent(operation = "payment.charge")
        public void charge(@IdempotencyKey @Header("Idempotency-Key") String key, @Payload String order,
                           @Header(KafkaHeaders.OFFSET) long offset, Consumer<?, ?> consumer) throws InterruptedException {
            runs.incrementAndGet();
            if (Thread.currentThread() == first && !release.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the first delivery was never released");
            }
        }

        /** Holds {@code thread}'s call inside the method until {@link #finishFirstDelivery()}. */
        public void holdInside(Thread thread) {
            first = thread;
        }

        public void finishFirstDelivery() {
            release.countDown();
        }

        public int runs() {
            return runs.get();
        }
    }
}
