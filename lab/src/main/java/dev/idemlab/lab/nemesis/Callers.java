package dev.idemlab.lab.nemesis;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The threads a run's calls are made on, and its clock: shared by every {@link CallPath}, so that a
 * layer changes how a call is made and never when. Immutable; the pools are the run's to shut down.
 *
 * @param sync the callers of synchronous calls, one thread each while it waits
 * @param asyncStages where asynchronous calls resume
 * @param rejectingStages where half of them resume instead: the nemesis makes it reject tasks
 * @param launcher schedules cancels
 * @param start the run's start, {@link System#nanoTime()}
 */
record Callers(ExecutorService sync, ExecutorService asyncStages, RejectingExecutor rejectingStages,
               ScheduledExecutorService launcher, long start) {

    /** Nanoseconds since the run started: the history's clock. */
    long now() {
        return System.nanoTime() - start;
    }
}
