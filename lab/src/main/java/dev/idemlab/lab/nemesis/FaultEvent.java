package dev.idemlab.lab.nemesis;

import dev.idemlab.lab.faults.FaultKind;

/**
 * One fault the nemesis injected, as it happened: from when to when (nanoseconds of the run's clock),
 * when injecting it failed, why, and for a fault played on a holder in a child JVM, the key it held
 * ({@code -1} for any other fault). {@code issuedAt} is when the nemesis set about it: for a fault played
 * on a JVM that holds every key, {@code startedAt} is when that JVM was surely stopped or dead, and what
 * the fault broke can show between the two (a client's connection reset by the dying JVM). Elsewhere the
 * two are one. Immutable.
 */
record FaultEvent(FaultKind kind, long startedAt, long endedAt, String failure, int key, long issuedAt) {

    /** A fault that began as it was issued. */
    FaultEvent(FaultKind kind, long startedAt, long endedAt, String failure, int key) {
        this(kind, startedAt, endedAt, failure, key, startedAt);
    }

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
