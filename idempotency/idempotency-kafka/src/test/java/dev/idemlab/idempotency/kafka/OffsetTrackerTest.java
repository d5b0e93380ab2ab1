package dev.idemlab.idempotency.kafka;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The tracker commits the finished prefix of each partition and never past an unfinished record. */
class OffsetTrackerTest {

    private static final TopicPartition P0 = new TopicPartition("charges", 0);
    private static final TopicPartition P1 = new TopicPartition("charges", 1);

    private final OffsetTracker tracker = new OffsetTracker();

    @Test
    void aLaterRecordFinishedFirstIsNotCommittedPastAnUnfinishedOne() {
        tracker.begin(P0, 5);
        tracker.begin(P0, 6);
        tracker.begin(P0, 7);
        tracker.finish(P0, 7);
        tracker.finish(P0, 6);
        assertThat(tracker.committable()).isEmpty();

        tracker.finish(P0, 5);
        assertThat(tracker.committable()).containsExactly(Map.entry(P0, new OffsetAndMetadata(8)));
    }

    @Test
    void anAbandonedRecordHoldsItsPartitionAndForgetsTheRecordsAfterIt() {
        tracker.begin(P0, 0);
        tracker.begin(P0, 1);
        tracker.begin(P0, 2);
        tracker.finish(P0, 0);
        tracker.abandon(P0, 1);
        assertThat(tracker.committable()).containsExactly(Map.entry(P0, new OffsetAndMetadata(1)));
        assertThat(tracker.pending(P0)).isZero();
        assertThatThrownBy(() -> tracker.finish(P0, 2)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("charges-0@2 was not begun");
    }

    @Test
    void partitionsAreTrackedApartAndACommitIsNotRepeated() {
        tracker.begin(P0, 0);
        tracker.begin(P1, 0);
        tracker.finish(P1, 0);
        Map<TopicPartition, OffsetAndMetadata> due = tracker.committable();
        assertThat(due).containsExactly(Map.entry(P1, new OffsetAndMetadata(1)));

        tracker.committed(due);
        assertThat(tracker.committable()).isEmpty();
        assertThat(tracker.pending(P0)).isEqualTo(1);
    }

    @Test
    void aRevokedPartitionCommitsOnlyItsOwnPrefixAndIsForgotten() {
        tracker.begin(P0, 3);
        tracker.finish(P0, 3);
        tracker.begin(P1, 9);
        tracker.finish(P1, 9);
        assertThat(tracker.committable(List.of(P0))).containsExactly(Map.entry(P0, new OffsetAndMetadata(4)));

        tracker.forget(List.of(P0));
        assertThat(tracker.committable()).containsOnlyKeys(P1);
    }
}
