package dev.idemlab.idempotency;

import java.time.Duration;
import java.util.Objects;

/**
 * How a coordinator behaves: the in-flight policy, the lease, the record ttl, how long a waiter
 * waits, what happens when the store is down, and the largest result it stores.
 *
 * <p>Immutable and thread-safe; build one with {@link #custom()} or take {@link #ofDefaults()}.
 * Every rule is checked when the config is built, never later.
 */
public final class IdempotencyConfig {

    /** Reserve, and let a second caller wait for the first one's result. */
    public static final InFlightPolicy DEFAULT_POLICY = InFlightPolicy.WAIT;
    /** Longer than the slowest honest attempt. */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);
    /**
     * The shortest interval at which an owner renews its lease: the stores count leases in whole
     * milliseconds, and a shorter beat would keep the shared timer busy renewing rather than running.
     */
    public static final Duration MIN_HEARTBEAT_INTERVAL = Duration.ofMillis(1);
    /**
     * The shortest lease: the derived heartbeat interval, a third of the lease, must be at least
     * {@link #MIN_HEARTBEAT_INTERVAL}; a shorter lease would derive an interval of zero (or a few
     * nanoseconds), which no timer can run at.
     */
    public static final Duration MIN_LEASE = MIN_HEARTBEAT_INTERVAL.multipliedBy(3);
    /** Longer than a crashed batch job's retry. */
    public static final Duration DEFAULT_TTL = Duration.ofHours(24);
    /** A record shorter-lived than this cannot outlive the request that wrote it. */
    public static final Duration MIN_TTL = Duration.ofSeconds(60);
    /** Beyond this a record is an archive, not an idempotency record. */
    public static final Duration MAX_TTL = Duration.ofDays(30);
    /** How much longer than the lease a waiter waits by default before answering 409. */
    public static final Duration DEFAULT_WAIT_MARGIN = Duration.ofSeconds(1);
    /** Availability over exactly-once when the store is down. */
    public static final StoreFailureMode DEFAULT_STORE_FAILURE_MODE = StoreFailureMode.FAIL_OPEN;
    /** The largest result, as UTF-8 JSON, that is stored for replay. */
    public static final int DEFAULT_MAX_RESULT_BYTES = 64 * 1024;
    /** The first pause of a waiter polling for the outcome; it doubles up to {@link #DEFAULT_MAX_POLL_INTERVAL}. */
    public static final Duration DEFAULT_MIN_POLL_INTERVAL = Duration.ofMillis(2);
    /** The longest pause between two polls of a waiter. */
    public static final Duration DEFAULT_MAX_POLL_INTERVAL = Duration.ofMillis(25);
    /**
     * How often a waiter woken by its store's notifications reads the record anyway, for a
     * notification lost with a connection.
     */
    public static final Duration DEFAULT_SAFETY_POLL_INTERVAL = Duration.ofMillis(250);
    /** How long a store call that timed out is retried before the store-failure mode applies: a stall is not an outage. */
    public static final Duration DEFAULT_STORE_PATIENCE = Duration.ofSeconds(2);
    /**
     * How long a request is expected to take when nothing else is said: what a 409's Retry-After
     * counts down from, for work of about a second (a payment provider's call), not the whole lease.
     */
    public static final Duration DEFAULT_EXPECTED_DURATION = Duration.ofSeconds(1);
    /** The longest a waiter may wait, a poll may pause, or a timed-out store call may be retried. */
    public static final Duration MAX_WAIT = Duration.ofHours(1);

    private static final IdempotencyConfig DEFAULTS = custom().build();

    private final InFlightPolicy policy;
    private final Duration lease;
    private final Duration ttl;
    private final Duration waitTimeout;
    private final StoreFailureMode storeFailureMode;
    private final int maxResultBytes;
    private final Duration minPollInterval;
    private final Duration maxPollInterval;
    private final Duration heartbeatInterval;
    /** The interval the builder was given, or {@code null}: a copy with another lease derives its own. */
    private final Duration explicitHeartbeatInterval;
    private final Duration storePatience;
    private final Duration safetyPollInterval;
    private final Duration expectedDuration;

    private IdempotencyConfig(Builder b) {
        this.policy = b.policy;
        this.lease = b.lease;
        this.ttl = b.ttl;
        this.waitTimeout = b.waitTimeout != null ? b.waitTimeout : b.lease.plus(DEFAULT_WAIT_MARGIN);
        this.storeFailureMode = b.storeFailureMode;
        this.maxResultBytes = b.maxResultBytes;
        this.minPollInterval = b.minPollInterval;
        this.maxPollInterval = b.maxPollInterval;
        this.heartbeatInterval = b.heartbeatInterval != null ? b.heartbeatInterval : b.lease.dividedBy(3);
        this.explicitHeartbeatInterval = b.heartbeatInterval;
        this.storePatience = b.storePatience;
        this.safetyPollInterval = b.safetyPollInterval;
        this.expectedDuration = b.expectedDuration;
    }

    /** The defaults: WAIT, 30 s lease, 24 h ttl, fail open, 64 KiB results. */
    public static IdempotencyConfig ofDefaults() {
        return DEFAULTS;
    }

    /** A builder starting from the defaults. */
    public static Builder custom() {
        return new Builder();
    }

    /** A builder starting from this config. */
    public Builder toBuilder() {
        Builder builder = new Builder()
                .policy(policy).lease(lease).ttl(ttl).waitTimeout(waitTimeout)
                .storeFailureMode(storeFailureMode).maxResultBytes(maxResultBytes)
                .pollInterval(minPollInterval, maxPollInterval)
                .storePatience(storePatience).safetyPollInterval(safetyPollInterval)
                .expectedDuration(expectedDuration);
        return explicitHeartbeatInterval == null ? builder : builder.heartbeatInterval(explicitHeartbeatInterval);
    }

    public InFlightPolicy policy() {
        return policy;
    }

    public Duration lease() {
        return lease;
    }

    public Duration ttl() {
        return ttl;
    }

    /** How long a WAIT caller waits for an in-flight result before answering 409. */
    public Duration waitTimeout() {
        return waitTimeout;
    }

    public StoreFailureMode storeFailureMode() {
        return storeFailureMode;
    }

    public int maxResultBytes() {
        return maxResultBytes;
    }

    public Duration minPollInterval() {
        return minPollInterval;
    }

    public Duration maxPollInterval() {
        return maxPollInterval;
    }

    /**
     * How often the owner renews its lease while its action runs, at a fixed rate from one interval
     * after the action started; below half the lease. Default: a third of the lease.
     *
     * <p>Each beat starts a renewal, unless the holder's previous renewal is still in flight: then the
     * next one starts as soon as that one returns (one, however many beats it overlapped), so a holder
     * never has more than one renewal in flight and a slow one does not push the next a full interval
     * further. Renewals run on a pool of their own, not on the timer that beats: renewals that stall
     * on one part of the store (a paused shard, waiting out its command timeout) do not delay those of
     * holders on healthy parts.
     *
     * <p>A renewal that fails with a storage error (a timeout, a dropped connection, an open circuit)
     * does not lose the lease: it is counted and tried again at the next beat, not within the store
     * patience. The lease is lost only when the store says another attempt holds the key, or when the
     * lease last confirmed (counted from the start of the renewal, or the reserve, that confirmed it)
     * has run out by the coordinator's ticker. So, after a renewal confirmed the lease, the next may
     * fail, taking up to an interval to do so, and the holder keeps its lease if the one after it,
     * starting two intervals after the confirmation, reaches the store within the {@code lease - 2 *
     * interval} left: a third of the lease with the default (10 s of the default 30 s), room for a
     * store's command timeout plus the store patience (default 2 s). A failed renewal that takes longer
     * than an interval leaves the one after it that much less. For the first renewal that room is
     * shortened by how long the reserve took. A lease with less room than a store timeout
     * ({@code lease - 2 * interval} below it) survives no failed renewal.
     */
    public Duration heartbeatInterval() {
        return heartbeatInterval;
    }

    /**
     * How long a store call that timed out (a stall, as opposed to a refused connection or an open
     * circuit) is retried before the store-failure mode applies. Zero: never retried.
     */
    public Duration storePatience() {
        return storePatience;
    }

    /**
     * How often a waiter on a store that notifies (see
     * {@link dev.idemlab.idempotency.spi.CompletionNotifications}) reads the record anyway.
     */
    public Duration safetyPollInterval() {
        return safetyPollInterval;
    }

    /**
     * How long a request usually takes, for the Retry-After of a 409: a caller refused because the
     * key's first request is in flight is told to come back after this duration minus the holder's
     * age (the time since it reserved or last renewed its lease), one more such duration when the
     * holder is past it, and never later than the holder's lease ends. Default
     * {@link #DEFAULT_EXPECTED_DURATION}.
     */
    public Duration expectedDuration() {
        return expectedDuration;
    }

    @Override
    public String toString() {
        return "IdempotencyConfig{policy=" + policy + ", lease=" + lease + ", ttl=" + ttl
                + ", waitTimeout=" + waitTimeout + ", storeFailureMode=" + storeFailureMode
                + ", maxResultBytes=" + maxResultBytes + ", heartbeatInterval=" + heartbeatInterval
                + ", storePatience=" + storePatience + ", expectedDuration=" + expectedDuration + '}';
    }

    /** Builds an {@link IdempotencyConfig}. Not thread-safe. */
    public static final class Builder {

        private InFlightPolicy policy = DEFAULT_POLICY;
        private Duration lease = DEFAULT_LEASE;
        private Duration ttl = DEFAULT_TTL;
        private Duration waitTimeout;
        private StoreFailureMode storeFailureMode = DEFAULT_STORE_FAILURE_MODE;
        private int maxResultBytes = DEFAULT_MAX_RESULT_BYTES;
        private Duration minPollInterval = DEFAULT_MIN_POLL_INTERVAL;
        private Duration maxPollInterval = DEFAULT_MAX_POLL_INTERVAL;
        private Duration heartbeatInterval;
        private Duration storePatience = DEFAULT_STORE_PATIENCE;
        private Duration safetyPollInterval = DEFAULT_SAFETY_POLL_INTERVAL;
        private Duration expectedDuration = DEFAULT_EXPECTED_DURATION;

        private Builder() { }

        /**
         * How long a request usually takes, what a 409's Retry-After counts down from; positive, at most
         * an hour (a longer one is cut to the time left on the holder's lease anyway). Default
         * {@link IdempotencyConfig#DEFAULT_EXPECTED_DURATION}.
         */
        public Builder expectedDuration(Duration expectedDuration) {
            this.expectedDuration = Objects.requireNonNull(expectedDuration, "expectedDuration");
            return this;
        }

        /** How often a notified waiter reads the record anyway; positive, at most an hour. */
        public Builder safetyPollInterval(Duration safetyPollInterval) {
            this.safetyPollInterval = Objects.requireNonNull(safetyPollInterval, "safetyPollInterval");
            return this;
        }

        /**
         * How often the owner renews its lease; at least {@link IdempotencyConfig#MIN_HEARTBEAT_INTERVAL},
         * below half the lease. Default: a third of the lease. See {@link IdempotencyConfig#heartbeatInterval()} for how many failed renewals a
         * lease survives.
         */
        public Builder heartbeatInterval(Duration heartbeatInterval) {
            this.heartbeatInterval = Objects.requireNonNull(heartbeatInterval, "heartbeatInterval");
            return this;
        }

        /** How long a timed-out store call is retried; zero to one hour. */
        public Builder storePatience(Duration storePatience) {
            this.storePatience = Objects.requireNonNull(storePatience, "storePatience");
            return this;
        }

        public Builder policy(InFlightPolicy policy) {
            this.policy = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /**
         * How long a reservation protects the key; at least {@link IdempotencyConfig#MIN_LEASE} (so that the
         * heartbeat, at a third of it, has an interval to run at), shorter than the ttl.
         */
        public Builder lease(Duration lease) {
            this.lease = Objects.requireNonNull(lease, "lease");
            return this;
        }

        /** How long a completed record is kept: 60 s to 30 days. */
        public Builder ttl(Duration ttl) {
            this.ttl = Objects.requireNonNull(ttl, "ttl");
            return this;
        }

        /** How long a WAIT caller waits; positive. Default: the lease plus one second. */
        public Builder waitTimeout(Duration waitTimeout) {
            this.waitTimeout = Objects.requireNonNull(waitTimeout, "waitTimeout");
            return this;
        }

        public Builder storeFailureMode(StoreFailureMode storeFailureMode) {
            this.storeFailureMode = Objects.requireNonNull(storeFailureMode, "storeFailureMode");
            return this;
        }

        /** The largest result stored for replay, in bytes of UTF-8 JSON; positive. */
        public Builder maxResultBytes(int maxResultBytes) {
            this.maxResultBytes = maxResultBytes;
            return this;
        }

        /** A waiter's polling back-off: from {@code min}, doubling, up to {@code max}. */
        public Builder pollInterval(Duration min, Duration max) {
            this.minPollInterval = Objects.requireNonNull(min, "min");
            this.maxPollInterval = Objects.requireNonNull(max, "max");
            return this;
        }

        /**
         * @throws InvalidIdempotencyConfigException naming the rule a value breaks
         */
        public IdempotencyConfig build() {
            requireLeaseAndTtl();
            requirePositive("expectedDuration", expectedDuration);
            requireAtMost("expectedDuration", expectedDuration, MAX_WAIT);
            if (waitTimeout != null) {
                requirePositive("waitTimeout", waitTimeout);
                requireAtMost("waitTimeout", waitTimeout, MAX_WAIT);
            }
            if (heartbeatInterval != null) {
                requireHeartbeatInterval();
            }
            if (storePatience.isNegative()) {
                throw new InvalidIdempotencyConfigException("storePatience", storePatience,
                        "storePatience must not be negative");
            }
            requireAtMost("storePatience", storePatience, MAX_WAIT);
            requirePositive("safetyPollInterval", safetyPollInterval);
            requireAtMost("safetyPollInterval", safetyPollInterval, MAX_WAIT);
            if (maxResultBytes <= 0) {
                throw new InvalidIdempotencyConfigException("maxResultBytes", maxResultBytes,
                        "maxResultBytes must be positive");
            }
            requirePositive("minPollInterval", minPollInterval);
            requireAtMost("maxPollInterval", maxPollInterval, MAX_WAIT);
            if (maxPollInterval.compareTo(minPollInterval) < 0) {
                throw new InvalidIdempotencyConfigException("maxPollInterval", maxPollInterval,
                        "maxPollInterval must not be shorter than minPollInterval (" + minPollInterval + ")");
            }
            return new IdempotencyConfig(this);
        }

        private void requireLeaseAndTtl() {
            requirePositive("lease", lease);
            if (lease.compareTo(MIN_LEASE) < 0) {
                throw new InvalidIdempotencyConfigException("lease", lease, "lease must be at least " + MIN_LEASE
                        + ", so that the heartbeat renewing it at a third of the lease runs at an interval of at least "
                        + MIN_HEARTBEAT_INTERVAL);
            }
            if (ttl.compareTo(MIN_TTL) < 0 || ttl.compareTo(MAX_TTL) > 0) {
                throw new InvalidIdempotencyConfigException("ttl", ttl,
                        "ttl must be between " + MIN_TTL + " and " + MAX_TTL);
            }
            if (lease.compareTo(ttl) >= 0) {
                throw new InvalidIdempotencyConfigException("lease", lease,
                        "lease must be shorter than ttl (" + ttl + ")");
            }
        }

        private void requireHeartbeatInterval() {
            requirePositive("heartbeatInterval", heartbeatInterval);
            if (heartbeatInterval.compareTo(MIN_HEARTBEAT_INTERVAL) < 0) {
                throw new InvalidIdempotencyConfigException("heartbeatInterval", heartbeatInterval,
                        "heartbeatInterval must be at least " + MIN_HEARTBEAT_INTERVAL
                                + ": the stores count leases in whole milliseconds");
            }
            if (heartbeatInterval.multipliedBy(2).compareTo(lease) >= 0) {
                throw new InvalidIdempotencyConfigException("heartbeatInterval", heartbeatInterval,
                        "heartbeatInterval must be below half the lease (" + lease + ")");
            }
        }

        private static void requireAtMost(String setting, Duration value, Duration ceiling) {
            if (value.compareTo(ceiling) > 0) {
                throw new InvalidIdempotencyConfigException(setting, value, setting + " must be at most " + ceiling);
            }
        }

        private static void requirePositive(String setting, Duration value) {
            if (value.isNegative() || value.isZero()) {
                throw new InvalidIdempotencyConfigException(setting, value, setting + " must be positive");
            }
        }
    }
}
