package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.kafka.IdempotentRecordHandler;
import dev.idemlab.idempotency.kafka.RecordOutcome;
import dev.idemlab.idempotency.kafka.RecordResult;
import dev.idemlab.idempotency.kafka.ShareAcknowledgement;
import dev.idemlab.provider.Charge;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;

/**
 * One member of the share-lock-expiry scenario's share group (KIP-932), polling on a thread of its own
 * one record at a time in explicit acknowledgement mode: each delivery goes through the handler, is
 * acknowledged as {@link ShareAcknowledgement} says (an in-flight one held for the skip backoff first,
 * then released), and the acknowledgement committed; it records each delivery's count, outcome and
 * whether the broker accepted the acknowledgement. Thread-safe to read once {@link #stop()} returned.
 */
final class ShareGroupMember {

    /** One delivery to this member: the broker's delivery count, how the handler ended, what the broker said. */
    record Delivery(int count, String outcome, AcknowledgeType acknowledgement, String refusal) {

        /** {@code delivery 2 in flight, RELEASE}, {@code delivery 1 handled, ACCEPT refused (InvalidRecordStateException)}. */
        @Override
        public String toString() {
            return "delivery " + count + " " + outcome + ", " + acknowledgement.name()
                    + (refusal == null ? "" : " refused (" + refusal + ")");
        }
    }

    private final String name;
    private final MemberTimes times;
    private final IdempotentRecordHandler<String, String, Charge> handler;
    private final KafkaShareConsumer<String, String> consumer;
    private final Duration skipBackoff;
    private final boolean leaveOnceAnswered;
    private final CountDownLatch answered = new CountDownLatch(1);
    private final CountDownLatch settled = new CountDownLatch(1);
    private final List<Delivery> deliveries = new ArrayList<>();
    private final Thread thread;
    private volatile boolean running = true;
    private volatile RecordResult<Charge> answer;
    private volatile boolean accepted;
    private volatile Exception failure;

    /**
     * Subscribes a member of share group {@code group} to {@code topic} and starts polling.
     *
     * @param skipBackoff how long an in-flight delivery is held before it is released: a release is a
     *     delivery too, and the broker archives a record after its delivery count limit
     * @param leaveOnceAnswered whether the member leaves once the handler answered, whatever the broker
     *     then says of its acknowledgement (A); else it stays until the broker accepted one (B)
     */
    ShareGroupMember(String name, String bootstrapServers, String group, String topic,
                     IdempotentRecordHandler<String, String, Charge> handler, Duration skipBackoff, AtomicLong startNanos,
                     IntSupplier ledger, boolean leaveOnceAnswered) {
        this.name = name;
        this.handler = handler;
        this.skipBackoff = skipBackoff;
        this.times = new MemberTimes(startNanos, ledger);
        this.leaveOnceAnswered = leaveOnceAnswered;
        this.consumer = new KafkaShareConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.GROUP_ID_CONFIG, group,
                ConsumerConfig.CLIENT_ID_CONFIG, group + "-" + name,
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 1,
                ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 20,
                ConsumerConfig.SHARE_ACKNOWLEDGEMENT_MODE_CONFIG, "explicit"),
                new StringDeserializer(), new StringDeserializer());
        consumer.subscribe(List.of(topic));
        this.thread = new Thread(this::pollUntilStopped, "share-group-member-" + name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Called by the handler's value reader: the record reached this member (first time counts). */
    void received() {
        times.received();
    }

    private void pollUntilStopped() {
        try {
            while (running && !accepted && !(leaveOnceAnswered && answer != null)) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(20))) {
                    deliver(record);
                }
            }
        } catch (WakeupException e) {
            if (running) {
                failure = e;
            }
        } catch (RuntimeException | InterruptedException e) {
            failure = e;
        } finally {
            answered.countDown();
            settled.countDown();
            consumer.close(Duration.ofSeconds(5));
        }
    }

    private void deliver(ConsumerRecord<String, String> record) throws InterruptedException {
        received();
        int count = record.deliveryCount().map(Short::intValue).orElse(-1);
        RecordResult<Charge> result = null;
        AcknowledgeType type;
        String outcome;
        try {
            result = handler.process(record);
            type = ShareAcknowledgement.of(result.outcome());
            outcome = describe(result.outcome());
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            failure = e;
            type = ShareAcknowledgement.ofFailure(e);
            outcome = "failed (" + e.getClass().getSimpleName() + ")";
        }
        if (type == AcknowledgeType.RELEASE) {
            TimeUnit.NANOSECONDS.sleep(skipBackoff.toNanos());
        }
        consumer.acknowledge(record, type);
        String refusal = refusal(consumer.commitSync());
        synchronized (deliveries) {
            deliveries.add(new Delivery(count, outcome, type, refusal));
        }
        if (result != null && result.outcome().acknowledged()) {
            if (answer == null || refusal == null) {
                answer = result;
                times.answered();
            }
            answered.countDown();
            if (refusal == null) {
                accepted = true;
                settled.countDown();
            }
        }
    }

    private static String describe(RecordOutcome outcome) {
        return switch (outcome) {
            case HANDLED -> "handled";
            case REPLAYED -> "replayed";
            case BYPASSED -> "bypassed";
            case IN_FLIGHT -> "in flight";
        };
    }

    /** The simple name of the first exception the broker answered the commit with, or {@code null}. */
    private static String refusal(Map<?, Optional<KafkaException>> results) {
        return results.values().stream().flatMap(Optional::stream).findFirst()
                .map(e -> e.getClass().getSimpleName()).orElse(null);
    }

    /** Waits until the handler answered a delivery (or failed), at most {@code timeout}. */
    boolean awaitAnswer(Duration timeout) throws InterruptedException {
        return answered.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Waits until the broker accepted this member's acknowledgement (or the member stopped), at most {@code timeout}. */
    boolean awaitAccepted(Duration timeout) throws InterruptedException {
        return settled.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Stops polling and closes the consumer (it leaves the group). */
    void stop() throws InterruptedException {
        running = false;
        if (thread.isAlive()) {
            consumer.wakeup(); // out of a poll or a commit at once; a handler inside its charge finishes it first
        }
        thread.join(TimeUnit.SECONDS.toMillis(30));
    }

    /** This member's row: when the record first reached it, when the answer it kept came, and how. */
    CallerResult result(String outcome) {
        return times.row(name, response(), outcome);
    }

    private String response() {
        if (answer == null) {
            if (failure != null) {
                return failure.getClass().getSimpleName();
            }
            return !times.wasReceived() ? "never delivered" : "not acknowledged";
        }
        return answer.value() == null ? "null" : answer.value().id();
    }

    /** The answer kept: the accepted delivery's, else the first the handler gave. */
    RecordResult<Charge> answer() {
        return answer;
    }

    /** Whether the broker accepted one of this member's acknowledgements. */
    boolean accepted() {
        return accepted;
    }

    List<Delivery> deliveries() {
        synchronized (deliveries) {
            return List.copyOf(deliveries);
        }
    }

    String name() {
        return name;
    }
}
