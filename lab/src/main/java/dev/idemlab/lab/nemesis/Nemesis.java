package dev.idemlab.lab.nemesis;

import dev.idemlab.lab.faults.FaultKind;
import dev.idemlab.lab.scenario.StoreEndpoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The nemesis: a thread of its own that injects the schedule's faults one after the other, each on
 * time or as soon as the one before it ended, and records each as it happened. Stopping it ends the
 * fault in progress. Thread-safe.
 */
final class Nemesis {

    private static final Logger LOG = LoggerFactory.getLogger(Nemesis.class);

    private final NemesisTarget target;
    private final HolderFaults holders;
    private final RejectingExecutor stages;
    private final FaultSchedule schedule;
    private final long start;
    private final List<FaultEvent> events = Collections.synchronizedList(new ArrayList<>());
    private final Thread thread;
    private volatile boolean stopping;
    private volatile boolean betweenFaults = true;
    /**
     * When the schedule began ({@link System#nanoTime()}): as the workload's requests were scheduled, which
     * may be well after the run's clock started, where a path's servers took long to come up (the sample's JVM).
     */
    private volatile long scheduleStart;

    /** @param holders plays the schedule's holder faults; {@code null} when it has none */
    Nemesis(NemesisTarget target, RejectingExecutor stages, FaultSchedule schedule, HolderFaults holders,
            long start) {
        this.target = target;
        this.holders = holders;
        this.stages = stages;
        this.schedule = schedule;
        this.start = start;
        this.thread = new Thread(this::injectAll, "nemesis");
        thread.setDaemon(true);
    }

    /**
     * The faults a run against {@code target} draws from: the store's own, the callers' side, and, on a
     * store another process can reach (not memory), holders in child JVMs paused or killed.
     */
    static List<FaultKind> kinds(NemesisTarget target) {
        List<FaultKind> kinds = new ArrayList<>(target.kinds());
        kinds.add(FaultKind.REJECT_RESUMPTIONS);
        if (StoreEndpoint.sameAs(target.store()).isPresent()) {
            kinds.add(FaultKind.PAUSE_HOLDER);
            kinds.add(FaultKind.KILL_HOLDER);
        }
        return kinds;
    }

    /** Starts the schedule now, as the workload's requests start. */
    void start() {
        scheduleStart = System.nanoTime();
        thread.start();
    }

    /** How many faults were injected so far. */
    int injected() {
        return events.size();
    }

    /**
     * Ends the schedule: a fault in progress is held to its end and cleaned up as usual (an interrupt
     * would break its clean-up, a slot migration left half done), the wait for the next one is cut
     * short. Returns every fault as it happened.
     */
    List<FaultEvent> stop() throws InterruptedException {
        stopping = true;
        if (betweenFaults) {
            thread.interrupt();
        }
        thread.join(TimeUnit.SECONDS.toMillis(30));
        if (thread.isAlive()) {
            // A holder fault outlived the wait (a child slow to answer): cut it short, its child is reaped.
            thread.interrupt();
            thread.join(TimeUnit.SECONDS.toMillis(90));
        }
        synchronized (events) {
            return List.copyOf(events);
        }
    }

    private void injectAll() {
        for (FaultSchedule.Planned planned : schedule.faults()) {
            if (!FaultSchedule.awaitTurn(planned.atMillis(), scheduleStart)) {
                return;
            }
            betweenFaults = false;
            if (stopping) {
                return;
            }
            Thread.interrupted(); // an interrupt meant for the wait above must not cut the fault's clean-up
            long issued = System.nanoTime() - start;
            AtomicLong began = new AtomicLong(issued);
            String failure = null;
            int key = -1;
            try {
                key = inject(planned.kind(), Duration.ofMillis(planned.lengthMillis()),
                        () -> began.set(System.nanoTime() - start));
            } catch (Exception e) {
                failure = e.toString();
                LOG.warn("the nemesis could not inject {} in full: {}", planned.kind().id(), failure);
            }
            events.add(new FaultEvent(planned.kind(), began.get(), System.nanoTime() - start, failure, key, issued));
            betweenFaults = true;
            if (stopping) {
                return;
            }
        }
    }

    /** Injects one fault; returns the key a holder fault held, or -1. */
    private int inject(FaultKind kind, Duration length, Runnable tookEffect) throws Exception {
        if (kind.onChildHolder()) {
            return holders.inject(kind, length, tookEffect);
        }
        if (kind != FaultKind.REJECT_RESUMPTIONS) {
            target.inject(kind, length);
            return -1;
        }
        stages.rejecting(true);
        try {
            NemesisTarget.hold(length);
        } finally {
            stages.rejecting(false);
        }
        return -1;
    }
}
