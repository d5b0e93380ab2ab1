package dev.idemlab.idempotency.kafka;

/**
 * How one delivery of a record ended. Only {@link #HANDLED}, {@link #REPLAYED} and {@link #BYPASSED}
 * acknowledge the record (its offset may be committed); {@link #IN_FLIGHT} does not.
 */
public enum RecordOutcome {

    /** This delivery ran the handler (it won the reservation, or the store failed and the coordinator failed open). */
    HANDLED(true),
    /** An earlier delivery's handling completed (or was waited for): acknowledged without running the handler. */
    REPLAYED(true),
    /** The record carries no key and none is required: the handler ran without the coordinator. */
    BYPASSED(true),
    /** The first delivery is still being handled (policy SKIP, or a WAIT that ran out): not acknowledged, retried. */
    IN_FLIGHT(false);

    private final boolean acknowledged;

    RecordOutcome(boolean acknowledged) {
        this.acknowledged = acknowledged;
    }

    /** Whether the record's offset may be committed after this outcome. */
    public boolean acknowledged() {
        return acknowledged;
    }
}
