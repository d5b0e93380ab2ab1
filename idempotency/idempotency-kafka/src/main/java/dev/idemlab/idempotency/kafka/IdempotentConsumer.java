package dev.idemlab.idempotency.kafka;

import dev.idemlab.idempotency.InvalidIdempotencyConfigException;
import dev.idemlab.idempotency.Ticker;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;

/**
 * The poll loop around an {@link IdempotentRecordHandler}: Kafka's consumer contract (poll, handle,
 * commit) stated in one place. Each {@link #poll} hands every record received to the handler in
 * partition order and then commits, synchronously, only what {@link OffsetTracker} allows: per
 * partition, the offset after the last record of the unbroken run of acknowledged ones. A record that
 * is not acknowledged (its first delivery is still being handled under {@link RedeliveryPolicy#SKIP},
 * its handler threw, or it broke a rule) stops its partition there: the consumer seeks back to it,
 * pauses the partition, and resumes it after the retry backoff, when the record is delivered again.
 * Records of that partition after it in the same batch are not handled in this poll.
 *
 * <p><b>What the consumer's commits must be for the guarantee to hold.</b> The adapter promises that
 * no offset is committed past a record whose handling may still fail or be retried. That holds only if
 * nothing else commits:
 * <ul>
 *   <li>{@code enable.auto.commit=false} ({@link #requireManualCommits} checks a configuration): an
 *       auto-commit commits the position, which is past every record polled, handled or not;</li>
 *   <li>the application calls no {@code commitSync}/{@code commitAsync} of its own on this consumer,
 *       and subscribes through {@link #subscribe}, so that a revocation commits the finished prefix and
 *       nothing more;</li>
 *   <li>one thread drives the consumer (Kafka's consumers are not thread-safe), and a handler, with
 *       any WAIT, returns within {@code max.poll.interval.ms}: past it the group hands the partition to
 *       another member, which is exactly the redelivery the coordinator then holds off.</li>
 * </ul>
 * Delivery stays at-least-once (a record can reach two members); the coordinator's reservation is what
 * makes the handler's effect once per key while the store is up.
 *
 * <p>Not thread-safe, as the consumer it drives is not.
 */
public final class IdempotentConsumer<K, V> implements AutoCloseable {

    /** How long a partition stays paused after a record of it was not acknowledged, unless told otherwise. */
    public static final Duration DEFAULT_RETRY_BACKOFF = Duration.ofMillis(100);

    private final Consumer<K, V> consumer;
    private final IdempotentRecordHandler<K, V, ?> handler;
    private final long retryBackoffNanos;
    private final Ticker ticker;
    private final OffsetTracker tracker = new OffsetTracker();
    private final Map<TopicPartition, Long> resumeAt = new HashMap<>();
    private volatile BiConsumer<ConsumerRecord<K, V>, RecordResult<?>> observer = (record, result) -> { };

    private IdempotentConsumer(Consumer<K, V> consumer, IdempotentRecordHandler<K, V, ?> handler,
                               Duration retryBackoff, Ticker ticker) {
        this.consumer = consumer;
        this.handler = handler;
        this.retryBackoffNanos = retryBackoff.toNanos();
        this.ticker = ticker;
    }

    /** A loop over {@code consumer} (built with {@code enable.auto.commit=false}) with the default backoff. */
    public static <K, V> IdempotentConsumer<K, V> of(Consumer<K, V> consumer, IdempotentRecordHandler<K, V, ?> handler) {
        return of(consumer, handler, DEFAULT_RETRY_BACKOFF, Ticker.system());
    }

    /**
     * A loop over {@code consumer} that pauses a partition for {@code retryBackoff} after a record of it
     * was not acknowledged, timed by {@code ticker}.
     *
     * @throws InvalidIdempotencyConfigException if the backoff is negative
     */
    public static <K, V> IdempotentConsumer<K, V> of(Consumer<K, V> consumer, IdempotentRecordHandler<K, V, ?> handler,
                                                     Duration retryBackoff, Ticker ticker) {
        Objects.requireNonNull(consumer, "consumer");
        Objects.requireNonNull(handler, "handler");
        Objects.requireNonNull(ticker, "ticker");
        if (retryBackoff == null || retryBackoff.isNegative()) {
            throw new InvalidIdempotencyConfigException("retryBackoff", retryBackoff, "the retry backoff must be zero or more");
        }
        return new IdempotentConsumer<>(consumer, handler, retryBackoff, ticker);
    }

    /**
     * Checks that a consumer configuration leaves committing to the adapter.
     *
     * @throws InvalidIdempotencyConfigException unless {@code enable.auto.commit} is {@code false}
     *     (Kafka's default is {@code true})
     */
    public static void requireManualCommits(Map<String, ?> consumerConfig) {
        Object autoCommit = consumerConfig.get(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG);
        if (autoCommit == null || !"false".equalsIgnoreCase(autoCommit.toString().strip())) {
            throw new InvalidIdempotencyConfigException(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, autoCommit,
                    "the idempotent consumer commits only finished records: set enable.auto.commit=false"
                            + " (Kafka's default, true, commits every record polled, handled or not)");
        }
    }

    /**
     * Tells {@code observer} how each delivery ended, with the handler's result (fresh or replayed),
     * before its offset may be committed: for a reply, a log line, or the lab's report. Runs on the poll
     * thread; it must not throw.
     */
    public IdempotentConsumer<K, V> observe(BiConsumer<ConsumerRecord<K, V>, RecordResult<?>> observer) {
        this.observer = Objects.requireNonNull(observer, "observer");
        return this;
    }

    /** Subscribes the consumer to {@code topics}, with the listener that commits the finished prefix on revocation. */
    public void subscribe(Collection<String> topics) {
        consumer.subscribe(topics, new Revocations());
    }

    /**
     * Resumes partitions whose backoff is over, polls once, hands each record to the handler, and
     * commits what may be committed.
     */
    public PollSummary poll(Duration timeout) {
        resumeDue();
        ConsumerRecords<K, V> records = consumer.poll(timeout);
        Tally tally = new Tally();
        for (TopicPartition partition : records.partitions()) {
            handlePartition(partition, records.records(partition), tally);
        }
        Map<TopicPartition, OffsetAndMetadata> offsets = tracker.committable();
        RuntimeException commitFailure = commit(offsets);
        return new PollSummary(tally.handled, tally.replayed, tally.bypassed, tally.inFlight, tally.failures,
                commitFailure == null ? offsets : Map.of(), commitFailure);
    }

    private void handlePartition(TopicPartition partition, List<ConsumerRecord<K, V>> records, Tally tally) {
        for (ConsumerRecord<K, V> record : records) {
            tracker.begin(partition, record.offset());
            RecordOutcome outcome;
            try {
                RecordResult<?> result = handler.process(record);
                outcome = result.outcome();
                observer.accept(record, result);
            } catch (Exception e) {
                retryFrom(partition, record.offset());
                tally.failures.add(new PollSummary.RecordFailure(partition, record.offset(), e));
                return;
            }
            if (!outcome.acknowledged()) {
                retryFrom(partition, record.offset());
                tally.inFlight++;
                return;
            }
            tracker.finish(partition, record.offset());
            tally.count(outcome);
        }
    }

    /** Not acknowledged: nothing from {@code offset} on is committed, and the record is delivered again after the backoff. */
    private void retryFrom(TopicPartition partition, long offset) {
        tracker.abandon(partition, offset);
        consumer.seek(partition, offset);
        consumer.pause(List.of(partition));
        resumeAt.put(partition, ticker.read() + retryBackoffNanos);
    }

    private void resumeDue() {
        long now = ticker.read();
        List<TopicPartition> due = new ArrayList<>();
        for (Iterator<Map.Entry<TopicPartition, Long>> it = resumeAt.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<TopicPartition, Long> entry = it.next();
            if (now - entry.getValue() >= 0) {
                it.remove();
                if (consumer.assignment().contains(entry.getKey())) {
                    due.add(entry.getKey());
                }
            }
        }
        if (!due.isEmpty()) {
            consumer.resume(due);
        }
    }

    /** Commits {@code offsets}; a refusal (the group moved on) is returned, never thrown: those records go to another member. */
    private RuntimeException commit(Map<TopicPartition, OffsetAndMetadata> offsets) {
        if (offsets.isEmpty()) {
            return null;
        }
        try {
            consumer.commitSync(offsets);
            tracker.committed(offsets);
            return null;
        } catch (WakeupException | InterruptException e) {
            throw e; // the application's way out of its poll loop, not a refused commit
        } catch (KafkaException e) {
            tracker.forget(offsets.keySet());
            return e;
        }
    }

    /** The offsets this loop may commit now, and what it holds back. */
    public OffsetTracker tracker() {
        return tracker;
    }

    /** The consumer it drives. */
    public Consumer<K, V> consumer() {
        return consumer;
    }

    /** The handler it hands records to. */
    public IdempotentRecordHandler<K, V, ?> handler() {
        return handler;
    }

    /** Closes the consumer (which leaves its group); finished records were committed by the polls. */
    @Override
    public void close() {
        consumer.close();
    }

    /** Commits the finished prefix of partitions being taken away, and forgets them. */
    private final class Revocations implements ConsumerRebalanceListener {

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            commit(tracker.committable(partitions));
            tracker.forget(partitions);
            resumeAt.keySet().removeAll(partitions);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            // a partition (re)assigned starts from its committed offset: nothing of it is in flight here
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            tracker.forget(partitions);
            resumeAt.keySet().removeAll(partitions);
        }
    }

    private static final class Tally {
        int handled;
        int replayed;
        int bypassed;
        int inFlight;
        final List<PollSummary.RecordFailure> failures = new ArrayList<>();

        void count(RecordOutcome outcome) {
            switch (outcome) {
                case HANDLED -> handled++;
                case REPLAYED -> replayed++;
                case BYPASSED -> bypassed++;
                default -> inFlight++;
            }
        }
    }
}
