package dev.idemlab.lab.load;

/**
 * One measured burst of load: closed-loop clients ({@link LoadSession}), a constant arrival rate
 * ({@link OpenLoopSession}), or worker processes over HTTP ({@link WorkerFleet}).
 */
interface LoadDriver {

    /** Runs until the deadline or the count, then waits for every request in flight to answer. */
    void run() throws InterruptedException;

    /** Requests answered so far. */
    long completed();

    /** Duplicates sent so far. */
    long retriesSent();
}
