package dev.idemlab.idempotency.store.postgres;

import dev.idemlab.idempotency.InvalidIdempotencyConfigException;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * How a {@link PostgresIdempotencyStore} reaches its server and where it keeps its records.
 *
 * <p>The timeouts are short on purpose: a store that cannot answer within them is down, and the
 * coordinator's fail-open path must not wait for the driver's defaults (no connect timeout, no
 * socket timeout) before running the action.
 *
 * <p>Immutable and thread-safe; build one with {@link #custom(String)}. The builder is not
 * thread-safe and checks every rule when {@link Builder#build()} is called.
 */
public final class PostgresStoreConfig {

    /** The table all clients share unless told otherwise. */
    public static final String DEFAULT_TABLE = "idempotency_record";
    /** No prefix: the namespace {@code operation:key} is stored as it is. */
    public static final String DEFAULT_NAMESPACE_PREFIX = "";
    /** How long opening a TCP connection may take (the driver counts whole seconds). */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(1);
    /** How long a read from the server may block (the driver counts whole seconds). */
    public static final Duration DEFAULT_SOCKET_TIMEOUT = Duration.ofSeconds(2);
    /** The server cancels a statement that runs longer; each SPI call is one short statement. */
    public static final Duration DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(1);
    /** How long a call waits for a pooled connection before it counts as a storage error. */
    public static final Duration DEFAULT_POOL_TIMEOUT = Duration.ofSeconds(1);
    /** Connections in the pool. */
    public static final int DEFAULT_MAX_POOL_SIZE = 16;
    /**
     * Connections in the holders' own pool, which only lease renewals use: a live holder's renewal
     * never queues behind new requests for a connection (see {@link #renewalPoolSize()}).
     */
    public static final int DEFAULT_RENEWAL_POOL_SIZE = 4;
    /**
     * Wake the background sweeper after this many writes (reserves): it deletes expired rows a batch at a
     * time for as long as batches come back full. 0 never sweeps on its own.
     */
    public static final int DEFAULT_SWEEP_EVERY_WRITES = 4096;
    /** The most expired rows one sweep statement deletes, so that a sweep stays a short statement. */
    public static final int DEFAULT_SWEEP_BATCH = 1000;
    /** How long calls fail fast after the server was unreachable, before a probe tries it again. */
    public static final Duration DEFAULT_CIRCUIT_COOL_DOWN = Duration.ofSeconds(1);

    // The table name is spliced into SQL, so only plain lower-case identifiers are allowed.
    private static final Pattern TABLE = Pattern.compile("[a-z_][a-z0-9_]{0,50}");
    private static final Duration POOL_TIMEOUT_FLOOR = Duration.ofMillis(250);
    /** The longest driver timeout: the driver turns its seconds into an int of milliseconds. */
    private static final long MAX_DRIVER_SECONDS = Integer.MAX_VALUE / 1000;
    private static final String DRIVER_SECONDS_RULE = "must be a positive whole number of seconds, at most "
            + MAX_DRIVER_SECONDS + " (the driver counts seconds, and turns them into an int of milliseconds)";

    private final String jdbcUrl;
    private final String user;
    private final String password;
    private final String table;
    private final String namespacePrefix;
    private final Duration connectTimeout;
    private final Duration socketTimeout;
    private final Duration statementTimeout;
    private final Duration poolTimeout;
    private final int maxPoolSize;
    private final int renewalPoolSize;
    private final int sweepEveryWrites;
    private final int sweepBatch;
    private final Duration circuitCoolDown;
    private final boolean requireServerAtStart;

    private PostgresStoreConfig(Builder b) {
        this.jdbcUrl = b.jdbcUrl;
        this.user = b.user;
        this.password = b.password;
        this.table = b.table;
        this.namespacePrefix = b.namespacePrefix;
        this.connectTimeout = b.connectTimeout;
        this.socketTimeout = b.socketTimeout;
        this.statementTimeout = b.statementTimeout;
        this.poolTimeout = b.poolTimeout;
        this.maxPoolSize = b.maxPoolSize;
        this.renewalPoolSize = b.renewalPoolSize;
        this.sweepEveryWrites = b.sweepEveryWrites;
        this.sweepBatch = b.sweepBatch;
        this.circuitCoolDown = b.circuitCoolDown;
        this.requireServerAtStart = b.requireServerAtStart;
    }

    /** A builder for a store on {@code jdbcUrl} ({@code jdbc:postgresql://host:port/db}), with the defaults. */
    public static Builder custom(String jdbcUrl) {
        return new Builder(java.util.Objects.requireNonNull(jdbcUrl, "jdbcUrl"));
    }

    /**
     * A builder for a store on a service's own {@code DataSource} (see
     * {@link PostgresIdempotencyStore#open(javax.sql.DataSource, PostgresStoreConfig)}): no URL, and the
     * pool and driver settings are not used.
     */
    public static Builder forDataSource() {
        return new Builder(null);
    }

    /** A builder starting from this config. */
    public Builder toBuilder() {
        return new Builder(jdbcUrl).credentials(user, password).table(table).namespacePrefix(namespacePrefix)
                .connectTimeout(connectTimeout).socketTimeout(socketTimeout).statementTimeout(statementTimeout)
                .poolTimeout(poolTimeout).maxPoolSize(maxPoolSize).renewalPoolSize(renewalPoolSize)
                .sweepEveryWrites(sweepEveryWrites)
                .sweepBatch(sweepBatch).requireServerAtStart(requireServerAtStart).circuitCoolDown(circuitCoolDown);
    }

    public String jdbcUrl() {
        return jdbcUrl;
    }

    /** The user, or {@code null} to take it from the URL. */
    public String user() {
        return user;
    }

    /** The password, or {@code null} to take it from the URL. */
    public String password() {
        return password;
    }

    public String table() {
        return table;
    }

    /** Put before every namespace, so that clients sharing a table never see each other's rows. */
    public String namespacePrefix() {
        return namespacePrefix;
    }

    public Duration connectTimeout() {
        return connectTimeout;
    }

    public Duration socketTimeout() {
        return socketTimeout;
    }

    public Duration statementTimeout() {
        return statementTimeout;
    }

    public Duration poolTimeout() {
        return poolTimeout;
    }

    public int maxPoolSize() {
        return maxPoolSize;
    }

    /**
     * Connections in the second pool a store that builds its own pools opens for lease renewals only.
     * After a fault every pooled connection may be broken or busy at once, and new requests then queue
     * for the few the pool reopens: a holder's renewal among them could wait past its lease, and a retry
     * take the key while its action runs. Renewals are one in flight per holder and short, so a few
     * connections carry them. A store over the service's own {@code DataSource} opens such a pool as a
     * copy of the service's where that is a HikariCP pool (0: it renews through the service's own), and
     * renews through the service's {@code DataSource} where it is another kind.
     */
    public int renewalPoolSize() {
        return renewalPoolSize;
    }

    public int sweepEveryWrites() {
        return sweepEveryWrites;
    }

    public int sweepBatch() {
        return sweepBatch;
    }

    /** How long calls fail fast after the server was unreachable, before a probe tries it again. */
    public Duration circuitCoolDown() {
        return circuitCoolDown;
    }

    /**
     * Whether opening the store fails when the server cannot be reached (the default). When
     * {@code false} the store opens anyway, applies its schema on first success and reports its
     * server version as unknown: for a client that must exist before its server does.
     */
    public boolean requireServerAtStart() {
        return requireServerAtStart;
    }

    @Override
    public String toString() {
        // Never the password.
        return "PostgresStoreConfig[url=" + jdbcUrl + ", table=" + table + ", namespacePrefix='" + namespacePrefix
                + "', connectTimeout=" + connectTimeout + ", socketTimeout=" + socketTimeout
                + ", statementTimeout=" + statementTimeout + ", poolTimeout=" + poolTimeout
                + ", maxPoolSize=" + maxPoolSize + ", renewalPoolSize=" + renewalPoolSize + "]";
    }

    /** Builds a {@link PostgresStoreConfig}. Not thread-safe. */
    public static final class Builder {

        private final String jdbcUrl;
        private String user;
        private String password;
        private String table = DEFAULT_TABLE;
        private String namespacePrefix = DEFAULT_NAMESPACE_PREFIX;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private Duration socketTimeout = DEFAULT_SOCKET_TIMEOUT;
        private Duration statementTimeout = DEFAULT_STATEMENT_TIMEOUT;
        private Duration poolTimeout = DEFAULT_POOL_TIMEOUT;
        private int maxPoolSize = DEFAULT_MAX_POOL_SIZE;
        private int renewalPoolSize = DEFAULT_RENEWAL_POOL_SIZE;
        private int sweepEveryWrites = DEFAULT_SWEEP_EVERY_WRITES;
        private int sweepBatch = DEFAULT_SWEEP_BATCH;
        private Duration circuitCoolDown = DEFAULT_CIRCUIT_COOL_DOWN;
        private boolean requireServerAtStart = true;

        private Builder(String jdbcUrl) {
            this.jdbcUrl = jdbcUrl;
        }

        /** User and password; either may be {@code null} to take it from the URL. */
        public Builder credentials(String user, String password) {
            this.user = user;
            this.password = password;
            return this;
        }

        public Builder table(String table) {
            this.table = Objects.requireNonNull(table, "table");
            return this;
        }

        public Builder namespacePrefix(String namespacePrefix) {
            this.namespacePrefix = Objects.requireNonNull(namespacePrefix, "namespacePrefix");
            return this;
        }

        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = Objects.requireNonNull(connectTimeout, "connectTimeout");
            return this;
        }

        public Builder socketTimeout(Duration socketTimeout) {
            this.socketTimeout = Objects.requireNonNull(socketTimeout, "socketTimeout");
            return this;
        }

        public Builder statementTimeout(Duration statementTimeout) {
            this.statementTimeout = Objects.requireNonNull(statementTimeout, "statementTimeout");
            return this;
        }

        public Builder poolTimeout(Duration poolTimeout) {
            this.poolTimeout = Objects.requireNonNull(poolTimeout, "poolTimeout");
            return this;
        }

        public Builder maxPoolSize(int maxPoolSize) {
            this.maxPoolSize = maxPoolSize;
            return this;
        }

        /**
         * Connections in the renewals' own pool (see {@link PostgresStoreConfig#renewalPoolSize()}); at least
         * 1, or, for a store over a service's {@code DataSource}, 0 to renew on that.
         */
        public Builder renewalPoolSize(int renewalPoolSize) {
            this.renewalPoolSize = renewalPoolSize;
            return this;
        }

        public Builder sweepEveryWrites(int sweepEveryWrites) {
            this.sweepEveryWrites = sweepEveryWrites;
            return this;
        }

        /** How long calls fail fast after the server was unreachable; positive. */
        public Builder circuitCoolDown(Duration circuitCoolDown) {
            this.circuitCoolDown = Objects.requireNonNull(circuitCoolDown, "circuitCoolDown");
            return this;
        }

        public Builder sweepBatch(int sweepBatch) {
            this.sweepBatch = sweepBatch;
            return this;
        }

        public Builder requireServerAtStart(boolean requireServerAtStart) {
            this.requireServerAtStart = requireServerAtStart;
            return this;
        }

        /**
         * @throws InvalidIdempotencyConfigException naming the setting and the rule it breaks
         */
        public PostgresStoreConfig build() {
            require("jdbcUrl", jdbcUrl, jdbcUrl == null || jdbcUrl.startsWith("jdbc:postgresql:"),
                    "must start with jdbc:postgresql:");
            require("table", table, TABLE.matcher(table).matches(), "must match [a-z_][a-z0-9_]{0,50}");
            require("namespacePrefix", namespacePrefix, namespacePrefix.length() <= 200, "must be at most 200 characters");
            require("namespacePrefix", namespacePrefix, namespacePrefix.indexOf('{') < 0 && namespacePrefix.indexOf('}') < 0,
                    "must not contain braces (a brace ends the prefix)");
            require("connectTimeout", connectTimeout, isDriverSeconds(connectTimeout), DRIVER_SECONDS_RULE);
            require("socketTimeout", socketTimeout, isDriverSeconds(socketTimeout), DRIVER_SECONDS_RULE);
            require("statementTimeout", statementTimeout, statementTimeout.toMillis() >= 1, "must be at least 1 ms");
            require("statementTimeout", statementTimeout, statementTimeout.compareTo(socketTimeout) < 0,
                    "must be shorter than socketTimeout, so that the server cancels a slow statement first");
            require("poolTimeout", poolTimeout, poolTimeout.compareTo(POOL_TIMEOUT_FLOOR) >= 0, "must be at least 250 ms");
            require("maxPoolSize", maxPoolSize, maxPoolSize >= 1, "must be at least 1");
            require("renewalPoolSize", renewalPoolSize, renewalPoolSize >= (jdbcUrl == null ? 0 : 1), jdbcUrl == null
                    ? "must be 0 (renewals on the service's DataSource) or positive" : "must be at least 1");
            require("sweepEveryWrites", sweepEveryWrites, sweepEveryWrites >= 0, "must be 0 (never) or positive");
            require("sweepBatch", sweepBatch, sweepBatch >= 1, "must be at least 1");
            require("circuitCoolDown", circuitCoolDown, circuitCoolDown.compareTo(Duration.ofMillis(1)) >= 0,
                    "must be at least 1 ms (the circuit breaker counts whole milliseconds)");
            return new PostgresStoreConfig(this);
        }

        /**
         * Whether {@code d} is a timeout the driver can hold: whole seconds, which it turns into an int of
         * milliseconds, so at most {@link #MAX_DRIVER_SECONDS}.
         */
        private static boolean isDriverSeconds(Duration d) {
            return d.getNano() == 0 && d.getSeconds() > 0 && d.getSeconds() <= MAX_DRIVER_SECONDS;
        }

        private static void require(String setting, Object value, boolean rule, String message) {
            if (!rule) {
                throw new InvalidIdempotencyConfigException(setting, value, message);
            }
        }
    }
}
