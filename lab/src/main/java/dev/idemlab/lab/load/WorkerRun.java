package dev.idemlab.lab.load;

/**
 * One worker process's share of an HTTP load run, for the per-worker rows of the report. The ledger
 * check is the run's, never a worker's: a worker only knows what it was answered. Immutable and
 * thread-safe.
 *
 * @param worker the worker's number, from 1
 * @param pid its process id
 * @param requests requests it sent, duplicates handed to it by other workers included
 * @param retriesSent duplicates its clients handed to other workers
 * @param elapsedNanos from the go to its last answer
 * @param latency its request latencies
 */
public record WorkerRun(int worker, long pid, long requests, long retriesSent, long elapsedNanos,
                        LatencySummary latency) {

    /** Requests answered per second. */
    public double throughput() {
        return elapsedNanos == 0 ? 0 : latency.count() * 1e9 / elapsedNanos;
    }
}
