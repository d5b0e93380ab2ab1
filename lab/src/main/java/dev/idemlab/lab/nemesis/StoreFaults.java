package dev.idemlab.lab.nemesis;

import dev.idemlab.lab.faults.FaultKind;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * When a history's store could not be trusted to answer: the faults the nemesis injected on it and the
 * stalls its watch saw, each widened by the time the store may still fail after it ends, and the calms
 * between them. What the checker and {@link LeaseLoss} ask of a history's faults. Stateless.
 */
final class StoreFaults {

    /** After a fault ends, how long the store may still fail: the circuit's cool-down, a reconnection. */
    static final long RECOVERY = TimeUnit.SECONDS.toNanos(1);

    private StoreFaults() { }

    /**
     * Whether a fault of the store was on, or just over, at some moment between {@code from} and {@code to}:
     * one the nemesis injected, or a stall its watch saw (see {@link StallWatch}).
     */
    static boolean storeFaulted(NemesisHistory history, long from, long to) {
        return storeFaultWindows(history).stream().anyMatch(window -> window[0] <= to + RECOVERY && window[1] >= from);
    }

    /** Whether a fault of the store the nemesis injected was on, or just over, between {@code from} and {@code to}. */
    static boolean injectedFault(NemesisHistory history, long from, long to) {
        return history.faults().stream().anyMatch(fault -> onStore(fault.kind()) && fault.overlaps(from, to + RECOVERY));
    }

    /** The store's faults, injected and observed, each as its start and end. */
    static List<long[]> storeFaultWindows(NemesisHistory history) {
        List<long[]> windows = new ArrayList<>();
        history.faults().stream().filter(fault -> onStore(fault.kind()))
                .forEach(fault -> windows.add(new long[] {fault.startedAt(), fault.endedAt()}));
        history.stalls().forEach(stall -> windows.add(new long[] {stall.startedAt(), stall.endedAt()}));
        return windows;
    }

    /** Whether {@code kind} is a fault of the store: not of the callers' executor, nor of a child holder. */
    static boolean onStore(FaultKind kind) {
        return kind != FaultKind.REJECT_RESUMPTIONS && !kind.onChildHolder();
    }

    /**
     * How long the run's stall watch saw the store or the machine stalled between {@code from} and
     * {@code to}: the union of its stalls there (two probes see one stall twice). The history keeps its
     * stalls in the order they began, so one pass does.
     */
    static long stalledWithin(NemesisHistory history, long from, long to) {
        long stalled = 0;
        long coveredTo = from;
        for (StallWatch.Stall stall : history.stalls()) {
            long start = Math.max(stall.startedAt(), coveredTo);
            long end = Math.min(stall.endedAt(), to);
            if (end > start) {
                stalled += end - start;
                coveredTo = end;
            }
        }
        return stalled;
    }

    /**
     * The stretches between {@code from} and {@code to} with no fault of the store on and none ended
     * less than {@link #RECOVERY} before (the circuit's cool-down, a reconnection), in order, each as
     * its start and end.
     */
    static List<long[]> calms(NemesisHistory history, long from, long to) {
        List<long[]> faulted = storeFaultWindows(history).stream()
                .map(window -> new long[] {window[0], window[1] + RECOVERY})
                .sorted(Comparator.comparingLong(window -> window[0])).toList();
        List<long[]> calms = new ArrayList<>();
        long cursor = from;
        for (long[] window : faulted) {
            if (window[1] < cursor || window[0] > to) {
                continue;
            }
            if (window[0] > cursor) {
                calms.add(new long[] {cursor, window[0]});
            }
            cursor = Math.max(cursor, window[1]);
        }
        if (to > cursor) {
            calms.add(new long[] {cursor, to});
        }
        return calms;
    }

}
