package dev.idemlab.lab.scenario;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;

/**
 * When a member of a Kafka scenario's group first received the record and when it answered, on the
 * scenario's clock, and how many charges the provider's ledger held as it answered: the makings of the
 * member's row. Shared by the consumer-group and the share-group members. Thread-safe.
 */
final class MemberTimes {

    private final AtomicLong startNanos;
    private final IntSupplier ledger;
    private volatile long receivedNanos = -1;
    private volatile long answeredNanos = -1;
    private volatile int chargesAtAnswer = -1;

    /**
     * @param startNanos when the scenario's clock started (A began the charge), set once it has
     * @param ledger how many charges the provider's ledger holds now
     */
    MemberTimes(AtomicLong startNanos, IntSupplier ledger) {
        this.startNanos = startNanos;
        this.ledger = ledger;
    }

    /** The record reached the member now; the first time counts. */
    void received() {
        if (receivedNanos < 0) {
            receivedNanos = System.nanoTime();
        }
    }

    /** Whether the record ever reached the member. */
    boolean wasReceived() {
        return receivedNanos >= 0;
    }

    /** The member answered the record now: its row ends here, with the ledger as it is now. */
    void answered() {
        answeredNanos = System.nanoTime();
        chargesAtAnswer = ledger.getAsInt();
    }

    /** The member's loop failed now: its row ends here, with the ledger as it is when the row is made. */
    void failed() {
        answeredNanos = System.nanoTime();
    }

    /** The member's row: when the record first reached it and when it answered (ms on the scenario's clock). */
    CallerResult row(String name, String response, String outcome) {
        long start = receivedNanos < 0 ? -1 : TimeUnit.NANOSECONDS.toMillis(receivedNanos - startNanos.get());
        long end = answeredNanos < 0 ? -1 : TimeUnit.NANOSECONDS.toMillis(answeredNanos - startNanos.get());
        int charges = chargesAtAnswer < 0 ? ledger.getAsInt() : chargesAtAnswer;
        return new CallerResult(name, start, end, response, outcome, charges);
    }
}
