package dev.idemlab.lab.nemesis;

import dev.idemlab.lab.faults.FaultKind;

/**
 * One fault the consumer nemesis injected, as it happened: its kind, the group member it hit (or
 * {@code -} for the store and the broker), what it did to it, and from when to when (microseconds of the
 * machine's wall clock, as {@link ConsumerEvent}s), with why injecting it failed, or {@code null}. Immutable.
 */
record ConsumerFault(FaultKind kind, String member, String detail, long startedMicros, long endedMicros,
                     String failure) {

    boolean injected() {
        return failure == null;
    }

    /** Whether it was on between {@code from} and {@code to}, or ended less than {@code afterMicros} before. */
    boolean overlaps(long from, long to, long afterMicros) {
        return startedMicros <= to && endedMicros + afterMicros >= from;
    }

    @Override
    public String toString() {
        return kind.id() + (member.equals("-") ? "" : " " + member) + (detail.isEmpty() ? "" : " (" + detail + ")")
                + (failure == null ? "" : " [not injected: " + failure + "]");
    }
}
