package dev.idemlab.idempotency.kafka;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The post's race on a queue, on a real broker: consumer A of group G is inside the charge for a
 * record when the group gives the record to consumer B (A's {@code max.poll.interval.ms} ran out while
 * B joined), before A could commit it. B's delivery meets A's reservation: under WAIT it waits for A's
 * outcome, under SKIP it is not acknowledged and comes back after the backoff; either way it is a
 * replay, the charge is made once, and the group's offset ends past the record.
 */
class RedeliveryOnABrokerTest {

    private static KafkaFixture fixture;

    @BeforeAll
    static void start() {
        fixture = new KafkaFixture();
    }

    @AfterAll
    static void stop() {
        if (fixture != null) {
            fixture.close();
        }
    }

    @ParameterizedTest
    @EnumSource(RedeliveryPolicy.class)
    void aRecordRedeliveredWhileItsFirstHandlingRunsIsHandledOnce(RedeliveryPolicy policy) throws Exception {
        String topic = fixture.kafka.createTopic("race-" + policy, 1);
        String group = "charges-" + policy;
        fixture.send(topic, "order-42", "{\"order_id\":42,\"amount\":10}");

        IdempotencyStore shared = new InMemoryIdempotencyStore();
        CountDownLatch aInside = new CountDownLatch(1);
        CountDownLatch bMetA = new CountDownLatch(1);
        List<String> charges = Collections.synchronizedList(new ArrayList<>());
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
            charges.add("A");
            aInside.countDown();
            assertThat(bMetA.await(30, TimeUnit.SECONDS)).as("B met A's reservation").isTrue();
            return "ch_" + charges.size();
        });
        IdempotentRecordHandler<String, String, String> b = handler(watched, policy, (record, context) -> {
            charges.add("B");
            return "ch_" + charges.size();
        });

        List<PollSummary> aPolls = Collections.synchronizedList(new ArrayList<>());
        List<PollSummary> bPolls = Collections.synchronizedList(new ArrayList<>());
        AtomicBoolean running = new AtomicBoolean(true);
        Thread aLoop = loop(fixture.consumer(group, Map.of(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, 300)),
                a, topic, aPolls, running);
        assertThat(aInside.await(30, TimeUnit.SECONDS)).as("A is inside the charge").isTrue();
        Thread bLoop = loop(fixture.consumer(group, Map.of()), b, topic, bPolls, running);
        try {
            await().atMost(Duration.ofSeconds(40)).until(() -> sum(bPolls, PollSummary::replayed) == 1
                    && fixture.committed(group, topic) == 1);
        } finally {
            running.set(false);
            aLoop.join(30_000);
            bLoop.join(30_000);
        }

        assertThat(charges).as("charges made").containsExactly("A");
        assertThat(sum(aPolls, PollSummary::handled)).isEqualTo(1);
        assertThat(sum(bPolls, PollSummary::handled)).isZero();
        if (policy == RedeliveryPolicy.SKIP) {
            assertThat(sum(bPolls, PollSummary::inFlight)).as("B skipped the record while A held it").isPositive();
        } else {
            assertThat(b.coordinator().stats().count(Outcome.WAITED)).as("B waited for A").isEqualTo(1);
        }
        assertThat(fixture.committed(group, topic)).isEqualTo(1);
    }

    private static IdempotentRecordHandler<String, String, String> handler(
            IdempotencyStore store, RedeliveryPolicy policy, RecordHandler<String, String, String> work) {
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(store)
                .config(IdempotencyConfig.custom()
                        .policy(policy == RedeliveryPolicy.WAIT ? InFlightPolicy.WAIT : InFlightPolicy.RAISE)
                        .build())
                .build();
        return IdempotentRecordHandler.builder(coordinator, "payment.charge", ReturnedString.CODEC, work)
                .redelivery(policy)
                .build();
    }

    private static Thread loop(org.apache.kafka.clients.consumer.KafkaConsumer<String, String> consumer,
                               IdempotentRecordHandler<String, String, String> handler, String topic,
                               List<PollSummary> polls, AtomicBoolean running) {
        Thread thread = new Thread(() -> {
            try (IdempotentConsumer<String, String> loop = IdempotentConsumer.of(consumer, handler)) {
                loop.subscribe(List.of(topic));
                while (running.get()) {
                    polls.add(loop.poll(Duration.ofMillis(50)));
                }
            }
        }, "consumer-" + handler.coordinator().hashCode());
        thread.start();
        return thread;
    }

    private static int sum(List<PollSummary> polls, java.util.function.ToIntFunction<PollSummary> count) {
        synchronized (polls) {
            return polls.stream().mapToInt(count).sum();
        }
    }

    /** Stores a handler's string result as a JSON string, without Jackson. */
    enum ReturnedString implements ResultCodec<String> {
        CODEC;

        @Override
        public String encode(String result) {
            return "\"" + result + "\"";
        }

        @Override
        public String decode(String json) {
            return json.substring(1, json.length() - 1);
        }
    }
}
