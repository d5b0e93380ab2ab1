package dev.idemlab.lab.nemesis;

import dev.idemlab.lab.faults.FaultKind;

/**
 * One fault the nemesis injected, as it happened: from when to when (nanoseconds of the run's clock)
 * and, when injecting it failed, why. Immutable.
 */
record FaultEvent(FaultKind kind, long startedAt, long endedAt, String failure) {

    boolean overlaps(long from, long to) {
        return startedAt <= to && endedAt >= from;
    }

    boolean injected() {
        return failure == null;
    }
}
