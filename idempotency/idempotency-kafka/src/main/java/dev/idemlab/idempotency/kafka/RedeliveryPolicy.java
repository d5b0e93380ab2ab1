package dev.idemlab.idempotency.kafka;

/**
 * What a redelivered record meets while its first delivery is still being handled (by this consumer
 * or another member of the group after a rebalance). Under both, the handler runs at most once per
 * key while the store is up; they differ in what the consumer thread does meanwhile.
 */
public enum RedeliveryPolicy {

    /**
     * The consumer thread waits for the first handling's outcome (bounded by the coordinator's wait
     * timeout) and acknowledges the record as a replay. Needs a coordinator under
     * {@code InFlightPolicy.WAIT}. The wait counts against the consumer's {@code max.poll.interval.ms}:
     * keep the coordinator's wait timeout below it, or the consumer is expelled from its group.
     */
    WAIT,

    /**
     * The record is not acknowledged: its offset is not committed, its partition is sought back to it
     * and paused, and resumed after the retry backoff, when the record is delivered again (and is then
     * a replay, or runs if the first handling failed). Needs a coordinator under
     * {@code InFlightPolicy.RAISE}. The consumer thread stays free for other partitions.
     */
    SKIP
}
