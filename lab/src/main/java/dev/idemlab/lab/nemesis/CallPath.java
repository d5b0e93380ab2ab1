package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.StoreFailureMode;
import dev.idemlab.idempotency.IdempotencyStats;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.lab.faults.FaultKind;
import dev.idemlab.provider.FakePaymentProvider;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;

/**
 * How one call of the workload reaches the library: straight to the coordinator, through an
 * {@code @Idempotent} proxy, or over HTTP through the servlet or the WebFlux filter. Whatever the layer, the call's
 * action records into the call's {@link CallRecord} when it started (with its reservation's fence) and
 * what it charged, and the caller records what it got back, so that one checker reads every layer's
 * history alike. Implementations are thread-safe; {@link #close()} stops what the path started.
 */
interface CallPath extends AutoCloseable {

    /** The clients that send each request: one unnamed ({@code null}) where the layer has no clients. */
    default List<String> clients() {
        return Arrays.asList((String) null);
    }

    /**
     * The key the history files request {@code request} under when client number {@code client} sends
     * it: the request's own index where there is one client. Where several clients send the same key for
     * their own orders, each pair of client and key gets its own, so that the checker's per-key rules are
     * per client and key.
     */
    default int historyKey(int request, int client) {
        return request;
    }

    /** What {@code caller} does while another call holds its key, on this path: as the workload drew it, unless the path says. */
    default InFlightPolicy policy(Workload.Caller caller) {
        return caller.policy();
    }

    /** What {@code caller} does when the store fails, on this path: as the workload drew it, unless the path says. */
    default StoreFailureMode onStoreFailure(Workload.Caller caller) {
        return caller.onStoreFailure();
    }

    /**
     * What the path's own effects show against the calls' answers, read back once every call answered and
     * before the path closes: nothing where the path has no effects of its own beside the ledger.
     *
     * @throws IOException when they cannot be read
     */
    default List<Violation> check(List<CallRecord> calls) throws IOException {
        return List.of();
    }

    /**
     * Who plays the holder faults on this path: a JVM of the path's own that serves every call (the
     * sample's), or {@code null}, where the run starts a holder in a child JVM for each.
     */
    default HolderFaults holderFaults() {
        return null;
    }

    /** Whether a run through this path draws {@code kind}: a fault that cannot reach the path is left out. */
    default boolean plays(FaultKind kind) {
        return true;
    }

    /**
     * Sends {@code caller}'s call now, without blocking the launcher: {@code answered} is run once the
     * call answered, failed or was given up, and {@code record} holds what it got.
     */
    void send(Workload.Caller caller, CallRecord record, Runnable answered);

    /** The counters of the coordinators behind the path, added up. */
    IdempotencyStats stats();

    /** Stops what the path started (servers, clients); the store and the provider are the run's. */
    @Override
    void close();

    /**
     * The path {@code settings} ask for over {@code store}.
     *
     * @param charges through the sample: the provider's observer and latency, which {@code provider} was built with
     * @throws IOException when a server of the path cannot start
     */
    static CallPath open(NemesisSettings settings, IdempotencyStore store, IdempotencyConfig config,
                         FakePaymentProvider provider, SampleCharges charges, Callers callers)
            throws IOException, InterruptedException {
        if (settings.localEffects()) {
            return LocalEffectsPath.open(settings, store, config, provider, callers);
        }
        return switch (settings.through()) {
            case COORDINATOR -> new CoordinatorPath(settings, store, config, provider, callers);
            case PROXY -> new ProxyPath(settings, store, config, provider, callers);
            case HTTP, WEBFLUX -> HttpPath.start(settings, store, config, provider, callers);
            case SAMPLE -> SamplePath.start(settings, store, provider, charges, callers);
            case KAFKA -> throw new IllegalArgumentException("--through kafka sends records, not calls: ConsumerNemesis runs it");
        };
    }
}
