package dev.idemlab.lab.load;

import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.lab.infra.ServerInfo;
import java.util.List;
import java.util.Objects;

/**
 * One store under one policy, loaded and checked. Immutable and thread-safe.
 *
 * @param server the store's server: name, version, origin, address
 * @param check what the ledger says about the run
 * @param latency request latencies, retries included
 * @param elapsedNanos how long the measured run took, from the first request to the last answer
 * @param retriesSent how many of the requests were concurrent duplicates
 * @param heapUsedBytes heap in use right after the check, after a full collection, with the run's
 *     history and ledger still reachable: what bounded memory means here
 * @param historyBytes roughly the bytes the run's charge history held at the end
 * @param stallsMade how many times the store's server was stalled during the run
 * @param workers over HTTP, each worker process's share, in worker order; empty in process
 */
public record LoadRun(ServerInfo server, LedgerCheck check, LatencySummary latency, long elapsedNanos,
                      long retriesSent, long heapUsedBytes,
                      long historyBytes, int stallsMade, List<WorkerRun> workers) {

    /** A run in process. */
    public LoadRun(ServerInfo server, LedgerCheck check, LatencySummary latency, long elapsedNanos, long retriesSent,
                   long heapUsedBytes, long historyBytes, int stallsMade) {
        this(server, check, latency, elapsedNanos, retriesSent, heapUsedBytes, historyBytes, stallsMade, List.of());
    }

    /** A run without stalls. */
    public LoadRun(ServerInfo server, LedgerCheck check, LatencySummary latency, long elapsedNanos, long retriesSent,
                   long heapUsedBytes, long historyBytes) {
        this(server, check, latency, elapsedNanos, retriesSent, heapUsedBytes, historyBytes, 0);
    }

    public LoadRun {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(check, "check");
        Objects.requireNonNull(latency, "latency");
        workers = List.copyOf(workers);
    }

    /** The policy the run used. */
    public LabPolicy policy() {
        return check.policy();
    }

    /** Requests answered per second, retries included. */
    public double throughput() {
        return elapsedNanos == 0 ? 0 : latency.count() * 1e9 / elapsedNanos;
    }

    /** The policy's name in reports: run, wait, raise. */
    public String policyName() {
        return check.policy().name().toLowerCase(java.util.Locale.ROOT);
    }
}
