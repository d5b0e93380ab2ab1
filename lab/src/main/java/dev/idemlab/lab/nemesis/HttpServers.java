package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.IdempotencyStats;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.StoreFailureMode;
import dev.idemlab.lab.policy.LabPolicy;

import java.net.URI;

/**
 * The servers a run over HTTP sends to: one per in-flight policy and store-failure mode, each the demo's
 * charge route behind one of the library's HTTP filters, all over the run's store. {@link HttpPath} sends
 * the same clients, requests and checks to either filter (the servlet filter on Jetty as {@code lab
 * serve} runs it, {@link ServletServers}; the WebFlux filter on Reactor Netty, {@link WebFluxServers}),
 * so that what the run proves of one it proves of the other by the same history. Thread-safe;
 * {@link #close()} stops them.
 */
interface HttpServers extends AutoCloseable {

    /** {@code http://127.0.0.1:PORT} of the server for callers of {@code policy} and {@code mode}. */
    URI uri(InFlightPolicy policy, StoreFailureMode mode);

    /** The counters of the coordinators behind the filters, added up. */
    IdempotencyStats stats();

    /** Stops the servers, also with requests in flight; the store and the provider are the run's. */
    @Override
    void close();

    /**
     * The lab's policy for the server of {@code policy}: the route's 409 (RAISE) or its opt-in wait (WAIT);
     * under the result-cache sabotage the lab's result cache, whatever the caller drew.
     */
    static LabPolicy labPolicy(NemesisSettings settings, InFlightPolicy policy) {
        if (settings.sabotage() == Sabotage.RESULT_CACHE) {
            return LabPolicy.RUN;
        }
        return policy == InFlightPolicy.WAIT ? LabPolicy.WAIT : LabPolicy.RAISE;
    }
}
