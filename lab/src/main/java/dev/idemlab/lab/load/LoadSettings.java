package dev.idemlab.lab.load;

import java.time.Duration;
import java.util.Objects;

/**
 * How hard and how long one load run pushes: closed-loop clients, each sending logical requests
 * drawn from {@code keys} and, with probability {@code retryRate}, a concurrent duplicate of one.
 * Immutable and thread-safe. The command line checks every value against its rule first; the
 * checks here only guard programming errors.
 *
 * @param clients client threads, each with at most one request and one duplicate in flight
 * @param retryRate the fraction of logical requests re-sent with the same key while the first is in flight
 * @param providerLatency how long the fake provider takes per charge
 * @param keys how many distinct logical requests the clients draw from
 * @param duration how long the run lasts, or {@code null} when it stops by count
 * @param requests how many requests (retries included) the run sends, or 0 when it stops by duration
 * @param seed the seed every client's random choices derive from
 * @param rate logical requests started per second at a constant arrival rate (open loop, latency from
 *     each request's intended start, at most {@code clients} in flight), or 0 for closed-loop clients
 */
public record LoadSettings(int clients, double retryRate, Duration providerLatency, int keys, Duration duration,
                           long requests, long seed, double rate) {

    /** Closed-loop settings. */
    public LoadSettings(int clients, double retryRate, Duration providerLatency, int keys, Duration duration,
                        long requests, long seed) {
        this(clients, retryRate, providerLatency, keys, duration, requests, seed, 0);
    }

    /** Clients when none are asked for. */
    public static final int DEFAULT_CLIENTS = 32;
    /** Small enough that the store, not the provider, is what the load measures. */
    public static final Duration DEFAULT_PROVIDER_LATENCY = Duration.ofMillis(5);
    /** Large enough that nearly every logical request has a fresh key. */
    public static final int DEFAULT_KEYS = 1_000_000_000;
    /** How long a run lasts when neither a duration nor a count is asked for. */
    public static final Duration DEFAULT_DURATION = Duration.ofSeconds(10);
    /** Warm-up requests per client, sent to a throwaway store and provider before the measured run. */
    static final int WARM_UP_PER_CLIENT = 40;

    public LoadSettings {
        Objects.requireNonNull(providerLatency, "providerLatency");
        if (clients < 1 || keys < 1 || retryRate < 0 || retryRate > 1 || requests < 0) {
            throw new IllegalArgumentException("invalid load settings: clients=" + clients + ", keys=" + keys
                    + ", retryRate=" + retryRate + ", requests=" + requests);
        }
        if (!(rate >= 0) || Double.isInfinite(rate)) {
            throw new IllegalArgumentException("invalid load settings: rate=" + rate);
        }
        if ((duration == null) == (requests == 0)) {
            throw new IllegalArgumentException("a load run stops by duration or by request count: exactly one");
        }
    }

    /** Whether the run stops after {@link #requests()} requests rather than after {@link #duration()}. */
    public boolean stopsByCount() {
        return requests > 0;
    }

    /** Whether requests arrive at a constant {@link #rate()} instead of from closed-loop clients. */
    public boolean openLoop() {
        return rate > 0;
    }

    /** These settings with requests arriving at {@code rate} per second; 0 for closed-loop clients. */
    public LoadSettings withRate(double rate) {
        return new LoadSettings(clients, retryRate, providerLatency, keys, duration, requests, seed, rate);
    }

    /** A short run of the same shape that warms the code paths and the store's connections. */
    LoadSettings warmUp() {
        return new LoadSettings(clients, retryRate, Duration.ZERO, keys, null,
                (long) clients * WARM_UP_PER_CLIENT, ~seed);
    }
}
