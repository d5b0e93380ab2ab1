package dev.idemlab.lab.nemesis;

import dev.idemlab.lab.faults.FaultKind;

/**
 * One fault the nemesis injected, as it happened: from when to when (nanoseconds of the run's clock),
 * when injecting it failed, why, and for a fault played on a holder in a child JVM, the key it held
 * ({@code -1} for any other fault). Immutable.
 */
record FaultEvent(FaultKind kind, long startedAt, long endedAt, String failure, int key) {

    /** A fault of the store or of the callers' side: it holds no key. */
    FaultEvent(FaultKind kind, long startedAt, long endedAt, String failure) {
        this(kind, startedAt, endedAt, failure, -1);
    }

    boolean overlaps(long from, long to) {
        return startedAt <= to && endedAt >= from;
    }

    boolean injected() {
        return failure == null;
    }
}
