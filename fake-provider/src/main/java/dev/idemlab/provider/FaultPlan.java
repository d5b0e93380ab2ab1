package dev.idemlab.provider;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Faults planned for the next calls, taken in the order they were planned. Thread-safe.
 */
final class FaultPlan {

    /** What happens to one call. */
    enum Fault {
        /** No fault: the call charges (or replays) and answers. */
        NONE,
        /** The call times out before anything is charged. */
        TIME_OUT_BEFORE_CHARGING,
        /** The call charges, then times out: the effect happened, the reply was lost. */
        CHARGE_THEN_TIME_OUT
    }

    private static final class Run {
        final Fault fault;
        int left;

        Run(Fault fault, int left) {
            this.fault = fault;
            this.left = left;
        }
    }

    private final Deque<Run> runs = new ArrayDeque<>();

    /** Plans {@code count} more calls to meet {@code fault}, after those already planned. */
    synchronized void plan(Fault fault, int count) {
        if (count < 0) {
            throw new IllegalArgumentException("count must not be negative: " + count);
        }
        if (count == 0) {
            return;
        }
        Run last = runs.peekLast();
        if (last != null && last.fault == fault) {
            last.left += count;
        } else {
            runs.addLast(new Run(fault, count));
        }
    }

    /** The fault for the call that asks now; {@link Fault#NONE} when none is planned. */
    synchronized Fault take() {
        Run first = runs.peekFirst();
        if (first == null) {
            return Fault.NONE;
        }
        if (--first.left == 0) {
            runs.removeFirst();
        }
        return first.fault;
    }
}
