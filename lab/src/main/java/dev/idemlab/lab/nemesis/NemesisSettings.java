package dev.idemlab.lab.nemesis;

import java.time.Duration;
import java.util.Objects;

/**
 * One nemesis run's settings. Immutable and thread-safe.
 *
 * @param seed what the workload's and the faults' schedules are drawn from: the same seed, the same
 *     schedules (the threads' interleaving is the machine's)
 * @param duration how long requests keep arriving; the run ends once every call has answered
 * @param lease the coordinator's lease, short so that holders outlive it and waiters wait it out
 * @param downstreamKey whether the provider deduplicates on the key the action passes it
 * @param sabotage what is broken on purpose
 * @param through the layer the calls go through
 * @param clients over HTTP (either filter): who sends the requests, and whether the route allows clients
 *     that name themselves to nobody ({@link Clients#BEARER} for every other layer)
 * @param localEffects whether each request places an order in the store's own PostgreSQL through a
 *     workflow of local effects ({@link OrderBook}) rather than only charging; such a run is used as the
 *     library advises local effects to be: every caller fails closed, and the provider deduplicates on
 *     each remote step's key
 */
public record NemesisSettings(long seed, Duration duration, Duration lease, boolean downstreamKey, Sabotage sabotage,
                              Through through, Clients clients, boolean localEffects) {

    /** The lease a nemesis run uses unless told otherwise. */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(3);

    public NemesisSettings {
        Objects.requireNonNull(duration, "duration");
        Objects.requireNonNull(lease, "lease");
        Objects.requireNonNull(sabotage, "sabotage");
        Objects.requireNonNull(through, "through");
        Objects.requireNonNull(clients, "clients");
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("a nemesis run needs a positive duration, got " + duration);
        }
        if (clients != Clients.BEARER && !through.filter()) {
            throw new IllegalArgumentException("clients " + clients.id() + " are an HTTP route's setting: they need "
                    + "through http or webflux, got " + through.id());
        }
        if (sabotage == Sabotage.SHARED_SCOPE && !through.filter()) {
            throw new IllegalArgumentException("the sabotage " + sabotage.id() + " breaks the HTTP filter's "
                    + "scoping: it needs through http or webflux, got " + through.id());
        }
        if (through == Through.WEBFLUX && sabotage == Sabotage.RESULT_CACHE) {
            throw new IllegalArgumentException("the sabotage " + sabotage.id() + " puts the lab's result cache, "
                    + "which derives no downstream key, behind the route, and the WebFlux filter needs one for its "
                    + "exchange's attributes: through webflux the sabotage must be none, forgetful-store or "
                    + "shared-scope");
        }
        if (through == Through.SAMPLE && sabotage != Sabotage.NONE && sabotage != Sabotage.RESULT_CACHE) {
            throw new IllegalArgumentException("the sample runs in a JVM of its own, whose store and filter the lab "
                    + "cannot swap: through sample the sabotage must be none or result-cache (the sample's own "
                    + "result-cache mode), got " + sabotage.id());
        }
        if (localEffects && (!downstreamKey || through != Through.COORDINATOR)) {
            throw new IllegalArgumentException("local effects charge through a workflow's remote step, whose key the "
                    + "provider must deduplicate on, called on the coordinator: downstreamKey on and through "
                    + "coordinator, got " + downstreamKey + " and " + through.id());
        }
    }

    /** Settings for calls straight to the coordinator, as every run sent them before the layers. */
    public NemesisSettings(long seed, Duration duration, Duration lease, boolean downstreamKey, Sabotage sabotage) {
        this(seed, duration, lease, downstreamKey, sabotage, Through.COORDINATOR, Clients.BEARER, false);
    }

    /** Settings for calls that only charge, through {@code through} with {@code clients}. */
    public NemesisSettings(long seed, Duration duration, Duration lease, boolean downstreamKey, Sabotage sabotage,
                           Through through, Clients clients) {
        this(seed, duration, lease, downstreamKey, sabotage, through, clients, false);
    }

    /** These settings with the calls going through {@code layer}. */
    public NemesisSettings through(Through layer) {
        return new NemesisSettings(seed, duration, lease, downstreamKey, sabotage, layer, clients, localEffects);
    }

    /** These settings with the HTTP clients of {@code mode}. */
    public NemesisSettings with(Clients mode) {
        return new NemesisSettings(seed, duration, lease, downstreamKey, sabotage, through, mode, localEffects);
    }

    /** These settings with each request placing an order through local effects (the provider deduplicating). */
    public NemesisSettings withLocalEffects() {
        return new NemesisSettings(seed, duration, lease, true, sabotage, through, clients, true);
    }

    /** These settings with the provider deduplicating on the key: the second pass of the same schedule. */
    public NemesisSettings withDownstreamKey() {
        return new NemesisSettings(seed, duration, lease, true, sabotage, through, clients, localEffects);
    }
}
