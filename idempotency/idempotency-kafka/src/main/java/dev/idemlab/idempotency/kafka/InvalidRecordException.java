package dev.idemlab.idempotency.kafka;

import dev.idemlab.idempotency.IdempotencyException;

/**
 * A record the adapter cannot handle safely: it carries no key where one is required, its key breaks
 * the key rule, or the fingerprint cannot read its value. The record is not acknowledged: the
 * consumer does not commit past it. The message and the fields name the record and the rule.
 */
public final class InvalidRecordException extends IdempotencyException {

    private static final long serialVersionUID = 1L;

    private final String topic;
    private final int partition;
    private final long offset;
    private final String rule;

    /** A refusal of the record at {@code topic}/{@code partition}/{@code offset} for breaking {@code rule}. */
    public InvalidRecordException(String operation, String key, String topic, int partition, long offset,
                                  String rule, Throwable cause) {
        super(operation, key, "record " + topic + "-" + partition + "@" + offset + " of operation '" + operation
                + "' cannot be handled: " + rule + "; it is not acknowledged", cause);
        this.topic = topic;
        this.partition = partition;
        this.offset = offset;
        this.rule = rule;
    }

    /** The record's topic. */
    public String topic() {
        return topic;
    }

    /** The record's partition. */
    public int partition() {
        return partition;
    }

    /** The record's offset. */
    public long offset() {
        return offset;
    }

    /** The rule the record breaks. */
    public String rule() {
        return rule;
    }

    /** A bad request, as an HTTP layer would say it. */
    @Override
    public int httpStatus() {
        return 400;
    }
}
