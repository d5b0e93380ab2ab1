package dev.idemlab.idempotency.kafka;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which offsets a consumer may commit: per partition, the offset after the longest run of records,
 * from the first one begun, that have all finished. A record that has begun and not finished (still
 * being handled, or failed, or skipped while its first delivery runs elsewhere) holds its partition's
 * commit at its own offset, however many later records have finished: committing past it would
 * acknowledge a record whose handling may still fail or be retried, and a consumer that took the
 * partition over would never see it.
 *
 * <p>Records are begun in the order the consumer received them. A record given up on
 * ({@link #abandon}) is forgotten with every record after it in its partition, since the consumer
 * seeks back to it and receives them all again.
 *
 * <p>Thread-safe: handlers may finish on other threads than the poll loop's.
 */
public final class OffsetTracker {

    /** Per partition: offset begun -> finished. */
    private final Map<TopicPartition, TreeMap<Long, Boolean>> inFlight = new HashMap<>();
    /** Per partition: the next offset to commit, where it moved past the last commit. */
    private final Map<TopicPartition, Long> committable = new HashMap<>();

    /** Records that the record at {@code offset} of {@code partition} is being handled. */
    public synchronized void begin(TopicPartition partition, long offset) {
        inFlight.computeIfAbsent(partition, p -> new TreeMap<>()).put(offset, false);
    }

    /**
     * Records that the record's handling finished with an acknowledging outcome; the partition's
     * commit moves past it once every record begun before it has finished too.
     *
     * @throws IllegalStateException if the record was not begun (or was abandoned): finishing it would
     *     acknowledge a record nobody is tracking
     */
    public synchronized void finish(TopicPartition partition, long offset) {
        TreeMap<Long, Boolean> records = inFlight.get(partition);
        if (records == null || !records.containsKey(offset)) {
            throw new IllegalStateException("record " + partition + "@" + offset + " was not begun: it cannot be finished");
        }
        records.put(offset, true);
        while (!records.isEmpty() && records.firstEntry().getValue()) {
            committable.put(partition, records.pollFirstEntry().getKey() + 1);
        }
    }

    /**
     * Gives up on the record at {@code offset} and every later one of its partition: they will be
     * delivered again (the consumer seeks back to {@code offset}), and none of them is committed.
     */
    public synchronized void abandon(TopicPartition partition, long offset) {
        TreeMap<Long, Boolean> records = inFlight.get(partition);
        if (records != null) {
            records.tailMap(offset, true).clear();
        }
    }

    /**
     * The commits due: for each partition whose finished prefix moved since the last {@link #committed},
     * the offset after it (Kafka's committed offset is the next record to read).
     */
    public synchronized Map<TopicPartition, OffsetAndMetadata> committable() {
        Map<TopicPartition, OffsetAndMetadata> due = new HashMap<>();
        committable.forEach((partition, offset) -> due.put(partition, new OffsetAndMetadata(offset)));
        return due;
    }

    /** The commits due for these partitions only (those being revoked). */
    public synchronized Map<TopicPartition, OffsetAndMetadata> committable(Collection<TopicPartition> partitions) {
        Map<TopicPartition, OffsetAndMetadata> due = new HashMap<>();
        for (TopicPartition partition : partitions) {
            Long offset = committable.get(partition);
            if (offset != null) {
                due.put(partition, new OffsetAndMetadata(offset));
            }
        }
        return due;
    }

    /** Records that these commits were acknowledged by the broker. */
    public synchronized void committed(Map<TopicPartition, OffsetAndMetadata> offsets) {
        offsets.forEach((partition, offset) -> committable.remove(partition, offset.offset()));
    }

    /** Forgets partitions this consumer no longer owns (revoked or lost): their records are another's now. */
    public synchronized void forget(Collection<TopicPartition> partitions) {
        for (TopicPartition partition : partitions) {
            inFlight.remove(partition);
            committable.remove(partition);
        }
    }

    /** How many records of {@code partition} have begun and not yet been committable. */
    public synchronized int pending(TopicPartition partition) {
        TreeMap<Long, Boolean> records = inFlight.get(partition);
        return records == null ? 0 : records.size();
    }
}
