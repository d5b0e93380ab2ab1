package dev.idemlab.idempotency.kafka;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

import java.util.List;
import java.util.Map;

/**
 * What one {@link IdempotentConsumer#poll} did: how many records ended each way, the records that
 * failed (not acknowledged, to be delivered again), the offsets it committed, and a commit the group
 * refused (the partitions were rebalanced away; their records go to another member, where a finished
 * one is a replay).
 *
 * <p>Immutable and thread-safe.
 *
 * @param handled records whose handler ran in this poll
 * @param replayed records acknowledged without running the handler
 * @param bypassed records without a key, handled without the coordinator
 * @param inFlight records skipped because their first delivery is still being handled
 * @param failures records whose handling threw or that broke a rule
 * @param committed the offsets committed after this poll's records (the next record to read, per partition)
 * @param commitFailure why the commit was refused, or {@code null}
 */
public record PollSummary(int handled, int replayed, int bypassed, int inFlight, List<RecordFailure> failures,
                          Map<TopicPartition, OffsetAndMetadata> committed, RuntimeException commitFailure) {

    /** Copies the lists. */
    public PollSummary {
        failures = List.copyOf(failures);
        committed = Map.copyOf(committed);
    }

    /** How many records this poll received and looked at. */
    public int records() {
        return handled + replayed + bypassed + inFlight + failures.size();
    }

    /**
     * A record that was not acknowledged because its handling failed: its partition was sought back
     * to it and paused for the retry backoff.
     *
     * @param partition the record's topic and partition
     * @param offset its offset
     * @param failure what the handler, the coordinator or the reading of the record threw
     */
    public record RecordFailure(TopicPartition partition, long offset, Exception failure) { }
}
