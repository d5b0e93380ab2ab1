package dev.idemlab.lab.load;

import dev.idemlab.idempotency.Outcome;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * What every caller of a load run sent and got, kept compactly: counters for invocations,
 * outcomes and error kinds, and per key the distinct charge ids its callers were given (in
 * {@link ResponseTable}s, about 24 bytes per key however many responses it had). That is all the
 * {@link HistoryChecker} needs; no object is kept per request.
 *
 * <p>Thread-safe: any number of callers record at once, each key's table stripe under its own
 * lock. Read it once recording has stopped; a read during recording sees a moving picture.
 */
public final class ChargeHistory {

    /** One distinct (key, charge number) pair that callers were given, and how many responses held it. */
    @FunctionalInterface
    public interface ResponseVisitor {
        /**
         * @param key the logical request's index
         * @param chargeNumber N of {@code ch_N}, or -1 for a charge id of another shape
         * @param responses how many responses held this charge
         */
        void visit(int key, int chargeNumber, long responses);
    }

    private static final int STRIPES = 64;

    private final ResponseTable[] stripes = new ResponseTable[STRIPES];
    private final LongAdder invocations = new LongAdder();
    private final Map<Outcome, LongAdder> answers = new EnumMap<>(Outcome.class);
    private final Map<ErrorKind, LongAdder> errors = new EnumMap<>(ErrorKind.class);

    /** An empty history. */
    public ChargeHistory() {
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new ResponseTable(1024);
        }
        for (Outcome outcome : Outcome.values()) {
            answers.put(outcome, new LongAdder());
        }
        for (ErrorKind kind : ErrorKind.values()) {
            errors.put(kind, new LongAdder());
        }
    }

    /**
     * A caller sent a request. Its answer is recorded by {@link #answered} or {@link #failed}; an
     * answer that is neither (an unexpected error) is not recorded and counts as indeterminate.
     */
    public void invoked() {
        invocations.increment();
    }

    /** A caller of key {@code key} got charge {@code chargeId}, produced as {@code outcome} says. */
    public void answered(int key, String chargeId, Outcome outcome) {
        answers.get(outcome).increment();
        ResponseTable stripe = stripes[Math.floorMod(key, STRIPES)];
        synchronized (stripe) {
            stripe.add(key, LoadKeys.chargeNumber(chargeId));
        }
    }

    /** A caller got a definite error: nothing was charged for it. */
    public void failed(ErrorKind kind) {
        errors.get(kind).increment();
    }

    /**
     * Adds what a history recorded in another process holds (a load worker's, read back by the parent):
     * its counts of requests sent, answers by outcome and errors by kind.
     */
    void addCounts(long invocationCount, Map<Outcome, Long> answerCounts, Map<ErrorKind, Long> errorCounts) {
        invocations.add(invocationCount);
        answerCounts.forEach((outcome, count) -> answers.get(outcome).add(count));
        errorCounts.forEach((kind, count) -> errors.get(kind).add(count));
    }

    /** Adds that {@code responses} callers of {@code key} got charge number {@code chargeNumber} in another process. */
    void addResponses(int key, int chargeNumber, long responses) {
        ResponseTable stripe = stripes[Math.floorMod(key, STRIPES)];
        synchronized (stripe) {
            stripe.add(key, chargeNumber, responses);
        }
    }

    /** How many requests were sent. */
    public long invocations() {
        return invocations.sum();
    }

    /** How many requests got a charge back, produced as {@code outcome} says. */
    public long answers(Outcome outcome) {
        return answers.get(outcome).sum();
    }

    /** How many requests got a charge back. */
    public long answers() {
        return answers.values().stream().mapToLong(LongAdder::sum).sum();
    }

    /** How many requests got an error of {@code kind}. */
    public long errors(ErrorKind kind) {
        return errors.get(kind).sum();
    }

    /**
     * Requests sent that got no definite answer: an error of no {@link ErrorKind}, or no answer at
     * all (cut off when the run stopped). Either may or may not have charged.
     */
    public long indeterminate() {
        long definite = answers() + errors.values().stream().mapToLong(LongAdder::sum).sum();
        return invocations() - definite;
    }

    /** Visits every distinct (key, charge number) pair callers were given; -1 for an id not shaped {@code ch_N}. */
    public void forEachResponse(ResponseVisitor visitor) {
        for (ResponseTable stripe : stripes) {
            synchronized (stripe) {
                stripe.forEach(visitor);
            }
        }
    }

    /** How many keys had callers given different charge ids. */
    public int splitKeys() {
        int split = 0;
        for (ResponseTable stripe : stripes) {
            synchronized (stripe) {
                split += stripe.splitKeys();
            }
        }
        return split;
    }

    /** Roughly the bytes the per-key tables hold, the part of the history that grows with the run. */
    public long footprintBytes() {
        long bytes = 0;
        for (ResponseTable stripe : stripes) {
            synchronized (stripe) {
                bytes += stripe.footprintBytes();
            }
        }
        return bytes;
    }

    /** How many distinct keys got at least one charge back. */
    public int keysAnswered() {
        int keys = 0;
        for (ResponseTable stripe : stripes) {
            synchronized (stripe) {
                keys += stripe.keys();
            }
        }
        return keys;
    }
}
