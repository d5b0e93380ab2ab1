package dev.idemlab.idempotency.kafka;

import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * On a real broker: a record whose handling failed, or that broke a rule, is not acknowledged, and the
 * group's offset never moves past it, even when later records of its partition were fine; a failed
 * record is delivered again and, once handled, committed with those after it.
 */
class UnacknowledgedRecordsTest {

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

    @Test
    void aFailedRecordHoldsTheCommitAndIsHandledOnItsNextDelivery() {
        String topic = fixture.kafka.createTopic("failing", 1);
        fixture.send(topic, "order-1", "{\"amount\":10}");
        fixture.send(topic, "order-2", "{\"amount\":20}");
        fixture.send(topic, "order-3", "{\"amount\":30}");
        AtomicInteger attempts = new AtomicInteger();
        List<String> charged = new ArrayList<>();
        IdempotentRecordHandler<String, String, String> handler = handler((record, context) -> {
            if (record.offset() == 1 && attempts.incrementAndGet() == 1) {
                throw new IllegalStateException("provider timed out before charging");
            }
            charged.add(record.value());
            return "ch_" + charged.size();
        });
        List<PollSummary> polls = new ArrayList<>();
        try (IdempotentConsumer<String, String> loop = IdempotentConsumer.of(fixture.consumer("failing", Map.of()), handler)) {
            loop.subscribe(List.of(topic));
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                PollSummary poll = loop.poll(Duration.ofMillis(50));
                polls.add(poll);
                return !poll.failures().isEmpty();
            });
            PollSummary failed = polls.get(polls.size() - 1);
            assertThat(failed.failures()).singleElement().satisfies(f -> assertThat(f.offset()).isEqualTo(1));
            assertThat(failed.committed()).as("only the record before the failed one").containsOnlyKeys(
                    new org.apache.kafka.common.TopicPartition(topic, 0));
            assertThat(fixture.committed("failing", topic)).isEqualTo(1);

            await().atMost(Duration.ofSeconds(30)).until(() -> {
                loop.poll(Duration.ofMillis(50));
                return fixture.committed("failing", topic) == 3;
            });
        }
        assertThat(charged).containsExactly("{\"amount\":10}", "{\"amount\":20}", "{\"amount\":30}");
    }

    @Test
    void aRecordWithoutAKeyIsNeverCommittedPastNorAreTheRecordsAfterIt() {
        String topic = fixture.kafka.createTopic("keyless", 1);
        fixture.send(topic, null, "{\"amount\":10}");
        fixture.send(topic, "order-2", "{\"amount\":20}");
        List<String> charged = new ArrayList<>();
        IdempotentRecordHandler<String, String, String> handler = handler((record, context) -> {
            charged.add(record.value());
            return "ch";
        });
        List<PollSummary.RecordFailure> failures = new ArrayList<>();
        try (IdempotentConsumer<String, String> loop = IdempotentConsumer.of(fixture.consumer("keyless", Map.of()), handler)) {
            loop.subscribe(List.of(topic));
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                failures.addAll(loop.poll(Duration.ofMillis(50)).failures());
                return failures.size() >= 2;
            });
        }
        assertThat(failures).allSatisfy(f -> assertThat(f.failure()).isInstanceOf(InvalidRecordException.class)
                .hasMessageContaining(topic + "-0@0").hasMessageContaining("Idempotency-Key"));
        assertThat(charged).as("nothing after the refused record was handled").isEmpty();
        assertThat(fixture.committed("keyless", topic)).as("no commit past the refused record").isEqualTo(-1);
    }

    private static IdempotentRecordHandler<String, String, String> handler(RecordHandler<String, String, String> work) {
        return IdempotentRecordHandler.builder(IdempotencyCoordinator.builder(new InMemoryIdempotencyStore()).build(),
                "payment.charge", RedeliveryOnABrokerTest.ReturnedString.CODEC, work).build();
    }
}
