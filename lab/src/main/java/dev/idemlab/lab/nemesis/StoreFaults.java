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
        return kind != FaultKind.REJECT_RESUMPTIONS && !kind.onChildHolder() && !kind.onConsumers();
    }

    /**
     * How long the store, the machine or the server the calls go to was stalled between {@code from} and
     * {@code to}: the union of the stalls the run's watch saw there (two probes see one stall twice) and,
     * through the sample, of its JVM's own pauses and kills (stopped, or killed and started again, it
     * answers nothing meanwhile, whoever holds a key).
     */
    static long stalledWithin(NemesisHistory history, long from, long to) {
        List<long[]> windows = new ArrayList<>();
        history.stalls().forEach(stall -> windows.add(new long[] {stall.startedAt(), stall.endedAt()}));
        if (history.settings().through() == Through.SAMPLE) {
            history.faults().stream().filter(fault -> fault.kind().onChildHolder() && fault.injected())
                    .forEach(fault -> windows.add(new long[] {fault.startedAt(), fault.endedAt()}));
        }
        windows.sort(Comparator.comparingLong(window -> window[0]));
        long stalled = 0;
        long coveredTo = from;
        for (long[] window : windows) {
            long start = Math.max(window[0], coveredTo);
            long end = Math.min(window[1], to);
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
