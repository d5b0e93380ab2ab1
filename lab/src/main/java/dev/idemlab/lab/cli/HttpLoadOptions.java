package dev.idemlab.lab.cli;

import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code --transport} and {@code --workers} of {@code lab load}: the load in process, or over real
 * HTTP from worker processes to one demo payment API, with the rules on what goes with what.
 */
final class HttpLoadOptions {

    static final int MAX_WORKERS = 64;

    @Mixin
    TransportOption transport;

    @Option(names = "--workers", paramLabel = "N",
            description = "With --transport http: worker processes (JVMs of their own), 1 to " + MAX_WORKERS
                    + ", each running --clients client threads against one demo payment API on one store; each "
                    + "concurrent duplicate is sent by another worker than its first request, so keys collide "
                    + "across processes. The ledger is read from the service's provider. Default: 1.")
    Integer workers;

    /**
     * How many worker processes send the load over HTTP, or 0 for the load in process.
     *
     * @param library whether {@code --library} was given
     * @param rate whether {@code --rate} was given
     * @param faults whether any of {@code --stall}, {@code --downstream-key on}, {@code --store-patience-ms} was
     * @param requests {@code --requests}, or {@code null}
     * @throws UsageException naming the rule a combination breaks
     */
    int workers(boolean library, boolean rate, boolean faults, Long requests) {
        if (!transport.http()) {
            if (workers != null) {
                throw new UsageException("--workers starts worker processes that send the load over HTTP: "
                        + "use it with --transport http");
            }
            return 0;
        }
        int count = workers == null ? 1 : (int) Bounds.check("--workers", workers, 1, MAX_WORKERS);
        if (library) {
            throw new UsageException("--library drives the peer libraries in process: it does not take --transport http");
        }
        if (rate) {
            throw new UsageException("--rate (open loop) runs in process only: it does not take --transport http");
        }
        if (faults) {
            throw new UsageException("--stall, --downstream-key and --store-patience-ms run in process only: "
                    + "they do not take --transport http");
        }
        if (requests != null && requests < count) {
            throw new UsageException("--requests must be at least --workers (each worker sends its share), got "
                    + requests + " for " + count + " workers");
        }
        return count;
    }
}
