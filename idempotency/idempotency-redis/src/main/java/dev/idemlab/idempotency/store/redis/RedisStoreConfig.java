package dev.idemlab.idempotency.store.redis;

import dev.idemlab.idempotency.InvalidIdempotencyConfigException;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How a {@link RedisIdempotencyStore} reaches its server: the URI, the prefix of every key it
 * writes, and the timeouts that make a dead or hung server cost milliseconds instead of a minute.
 *
 * <p><b>Standalone or Redis Cluster.</b> The URI's scheme picks the topology: {@code redis://} and
 * {@code rediss://} name one server; {@code redis-cluster://host:port[,host:port...]} names seed nodes
 * of a Redis Cluster, which the store reaches through Lettuce's cluster client (it learns the rest of the
 * cluster from them). {@link Builder#cluster(boolean) cluster(true)} treats a {@code redis://} or
 * {@code rediss://} URI as one seed of a cluster instead. On a cluster there is only database 0.
 *
 * <p><b>Replication.</b> Redis replicates asynchronously: a reservation a master acknowledged and
 * then lost in a crash, before any replica copied it, is gone after a failover, and the retry runs
 * the action again. {@link Builder#waitForReplicas(int, Duration)} makes the store send {@code WAIT}
 * after each reservation and treat one that too few replicas acknowledged as a storage error, so that
 * the coordinator's store-failure mode (fail open or closed) decides what happens to the call.
 *
 * <p>Immutable and thread-safe; build one with {@link #custom()} or {@link #of(String)}. Every rule
 * is checked when the config is built.
 */
public final class RedisStoreConfig {

    /** How long calls fail fast after the server was unreachable, before a probe tries it again. */
    public static final Duration DEFAULT_CIRCUIT_COOL_DOWN = Duration.ofSeconds(1);
    /** Keeps idempotency records apart from whatever else lives in the same database. */
    public static final String DEFAULT_KEY_PREFIX = "idempotency:";
    /** The scheme of a Redis Cluster seed list: {@code redis-cluster://host:port[,host:port...]}. */
    public static final String CLUSTER_SCHEME = "redis-cluster";
    /**
     * Long enough to ride out a stall of a loaded machine (at 250 ms the load harness saw timeouts
     * on a busy two-core box), short enough that a hung server fails the call within a second. A
     * server that is down costs nothing like it: while disconnected, commands are rejected at once.
     */
    public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(1);
    /** How long to wait for a TCP connection before the store counts the server as down. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(1);
    private static final Duration MIN_MILLIS = Duration.ofMillis(1);
    private static final Duration MAX_INT_MILLIS = Duration.ofMillis(Integer.MAX_VALUE);

    private final String uri;
    private final String keyPrefix;
    private final Duration commandTimeout;
    private final Duration connectTimeout;
    private final Duration circuitCoolDown;
    private final String host;
    private final int port;
    private final boolean cluster;
    private final boolean clusterFlag;
    private final List<String> seedUris;
    private final int waitReplicas;
    private final Duration waitTimeout;

    private RedisStoreConfig(Builder b, URI parsed, List<String> seedUris) {
        this.uri = b.uri;
        this.keyPrefix = b.keyPrefix;
        this.commandTimeout = b.commandTimeout;
        this.connectTimeout = b.connectTimeout;
        this.circuitCoolDown = b.circuitCoolDown;
        this.host = parsed.getHost();
        this.port = parsed.getPort() == -1 ? 6379 : parsed.getPort();
        this.clusterFlag = b.cluster;
        this.cluster = b.cluster || seedUris.size() > 1 || isClusterScheme(b.uri);
        this.seedUris = List.copyOf(seedUris);
        this.waitReplicas = b.waitReplicas;
        this.waitTimeout = b.waitTimeout;
    }

    /** A builder starting from the defaults; the URI must be set. */
    public static Builder custom() {
        return new Builder();
    }

    /**
     * The defaults for the server at {@code uri}.
     *
     * @throws InvalidIdempotencyConfigException if the URI is not a {@code redis://} or {@code rediss://} URI
     */
    public static RedisStoreConfig of(String uri) {
        return custom().uri(uri).build();
    }

    /** A builder starting from this config. */
    public Builder toBuilder() {
        return custom().uri(uri).keyPrefix(keyPrefix).commandTimeout(commandTimeout).connectTimeout(connectTimeout)
                .circuitCoolDown(circuitCoolDown).cluster(clusterFlag)
                .waitForReplicas(waitReplicas, waitTimeout);
    }

    /** Whether the store talks to a Redis Cluster (through its seed nodes) rather than to one server. */
    public boolean cluster() {
        return cluster;
    }

    /**
     * The URIs a client connects to: the one server, or each seed node of a cluster as a
     * {@code redis://} or {@code rediss://} URI (they may carry a password).
     */
    public List<String> seedUris() {
        return seedUris;
    }

    /** How many replicas must acknowledge a reservation ({@code WAIT}); 0 when the store does not wait. */
    public int waitReplicas() {
        return waitReplicas;
    }

    /** How long {@code WAIT} may block for the replicas' acknowledgement. */
    public Duration waitTimeout() {
        return waitTimeout;
    }

    /** The server's URI, e.g. {@code redis://127.0.0.1:6379/0}; it may carry a password. */
    public String uri() {
        return uri;
    }

    /** Put in front of every namespace to make the record's key. */
    public String keyPrefix() {
        return keyPrefix;
    }

    public Duration commandTimeout() {
        return commandTimeout;
    }

    public Duration connectTimeout() {
        return connectTimeout;
    }

    /** How long calls fail fast after the server was unreachable, before a probe tries it again. */
    public Duration circuitCoolDown() {
        return circuitCoolDown;
    }

    /**
     * {@code host:port} of the server, without credentials, for outputs; for a cluster, every seed's,
     * comma-separated.
     */
    public String address() {
        if (seedUris.size() <= 1) {
            return host + ":" + port;
        }
        StringBuilder all = new StringBuilder();
        for (String seed : seedUris) {
            URI parsed = URI.create(seed);
            all.append(all.length() == 0 ? "" : ",").append(parsed.getHost()).append(':')
                    .append(parsed.getPort() == -1 ? 6379 : parsed.getPort());
        }
        return all.toString();
    }

    /**
     * Where the store connects, for the messages of its failures: {@code host:port}, the database
     * number and the user it logs in as (never the password), so that a wrong port, database or user
     * is seen in a service's logs without reading its configuration.
     */
    public String target() {
        URI parsed = URI.create(seedUris.isEmpty() ? uri : seedUris.get(0));
        String path = parsed.getPath() == null ? "" : parsed.getPath().replace("/", "");
        // redis://secret@host is a password alone, as the client reads it; redis://user:secret@host names a user.
        String userInfo = parsed.getRawUserInfo();
        String user = userInfo == null || !userInfo.contains(":") ? null : userInfo.substring(0, userInfo.indexOf(':'));
        return address() + ", database " + (path.isEmpty() ? "0" : path)
                + ", user " + (user == null || user.isEmpty() ? "default" : user);
    }

    @Override
    public String toString() {
        // The URI may hold a password: print only the address.
        return "RedisStoreConfig{address=" + address() + ", cluster=" + cluster + ", keyPrefix='" + keyPrefix
                + "', commandTimeout=" + commandTimeout + ", connectTimeout=" + connectTimeout
                + ", waitReplicas=" + waitReplicas + '}';
    }

    private static boolean isClusterScheme(String uri) {
        return uri != null && uri.regionMatches(true, 0, CLUSTER_SCHEME + "://", 0, CLUSTER_SCHEME.length() + 3);
    }

    /** Builds a {@link RedisStoreConfig}. Not thread-safe. */
    public static final class Builder {

        private String uri;
        private String keyPrefix = DEFAULT_KEY_PREFIX;
        private Duration commandTimeout = DEFAULT_COMMAND_TIMEOUT;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private Duration circuitCoolDown = DEFAULT_CIRCUIT_COOL_DOWN;
        private boolean cluster;
        private int waitReplicas;
        private Duration waitTimeout = Duration.ZERO;

        private Builder() { }

        /**
         * The server: {@code redis://[password@]host[:port][/database]} or {@code rediss://...}; or the
         * seed nodes of a Redis Cluster: {@code redis-cluster://[password@]host:port[,host:port...]}.
         */
        public Builder uri(String uri) {
            this.uri = Objects.requireNonNull(uri, "uri");
            return this;
        }

        /** Put in front of every namespace; may be empty, must not contain control characters. */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix");
            return this;
        }

        /** How long one command may take before it fails as a storage error; positive. */
        public Builder commandTimeout(Duration commandTimeout) {
            this.commandTimeout = Objects.requireNonNull(commandTimeout, "commandTimeout");
            return this;
        }

        /** How long calls fail fast after the server was unreachable; at least 1 ms. */
        public Builder circuitCoolDown(Duration circuitCoolDown) {
            this.circuitCoolDown = Objects.requireNonNull(circuitCoolDown, "circuitCoolDown");
            return this;
        }

        /** How long a connection attempt may take; 1 ms to {@code Integer.MAX_VALUE} ms. */
        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = Objects.requireNonNull(connectTimeout, "connectTimeout");
            return this;
        }

        /**
         * Whether the {@code redis://} or {@code rediss://} URI names one seed node of a Redis Cluster
         * rather than a standalone server; a {@code redis-cluster://} URI is a cluster either way.
         */
        public Builder cluster(boolean cluster) {
            this.cluster = cluster;
            return this;
        }

        /**
         * After each reservation, {@code WAIT replicas timeout} on the connection to the master that
         * holds it; a reservation fewer than {@code replicas} replicas acknowledged within
         * {@code timeout} is a storage error. {@code replicas} 0 turns it off (the default). The
         * timeout must be at least 1 ms and shorter than the command timeout.
         */
        public Builder waitForReplicas(int replicas, Duration timeout) {
            this.waitReplicas = replicas;
            this.waitTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /**
         * @throws InvalidIdempotencyConfigException naming the rule a value breaks
         */
        public RedisStoreConfig build() {
            List<String> seeds = seeds(uri, cluster);
            URI parsed = parseUri(seeds.get(0));
            for (int i = 0; i < keyPrefix.length(); i++) {
                char c = keyPrefix.charAt(i);
                if (Character.isISOControl(c) || c == '{' || c == '}') {
                    throw new InvalidIdempotencyConfigException("keyPrefix", keyPrefix,
                            "keyPrefix must not contain control characters or braces (a brace ends the prefix)");
                }
            }
            requirePositive("commandTimeout", commandTimeout);
            requireMillisecondTimer("connectTimeout", connectTimeout, "the connection's timer counts whole milliseconds in"
                    + " an int: under 1 ms it would be no timeout at all, above it overflows");
            requireMillisecondTimer("circuitCoolDown", circuitCoolDown, "the circuit breaker counts whole milliseconds");
            if (waitReplicas < 0) {
                throw new InvalidIdempotencyConfigException("waitReplicas", waitReplicas,
                        "waitForReplicas' replicas must be 0 (off) or more");
            }
            if (waitReplicas > 0 && (waitTimeout.compareTo(MIN_MILLIS) < 0
                    || waitTimeout.compareTo(commandTimeout) >= 0)) {
                throw new InvalidIdempotencyConfigException("waitTimeout", waitTimeout,
                        "waitForReplicas' timeout must be at least 1 ms (WAIT counts whole milliseconds, and 0 waits"
                                + " forever) and shorter than the commandTimeout (" + commandTimeout
                                + "): WAIT blocks the command that carries it");
            }
            return new RedisStoreConfig(this, parsed, seeds);
        }

        /**
         * The URIs to connect to: {@code uri} itself for one server, or one {@code redis://} URI per
         * host of a {@code redis-cluster://} seed list (each with the list's credentials).
         */
        private static List<String> seeds(String uri, boolean cluster) {
            String rule = "a cluster uri must look like redis-cluster://[password@]host:port[,host:port...]";
            if (uri == null || !isClusterScheme(uri)) {
                URI single = parseUri(uri);
                if (cluster && single.getPath() != null && !single.getPath().isEmpty() && !single.getPath().equals("/")
                        && !single.getPath().equals("/0")) {
                    throw new InvalidIdempotencyConfigException("uri", redact(uri),
                            "a Redis Cluster has only database 0: drop the database from the uri");
                }
                return List.of(uri);
            }
            String rest = uri.substring(CLUSTER_SCHEME.length() + 3);
            int at = rest.lastIndexOf('@');
            String credentials = at >= 0 ? rest.substring(0, at + 1) : "";
            String hosts = at >= 0 ? rest.substring(at + 1) : rest;
            if (hosts.endsWith("/") || hosts.endsWith("/0")) {
                hosts = hosts.substring(0, hosts.lastIndexOf('/'));
            }
            if (hosts.isEmpty() || hosts.contains("/") || hosts.contains("?")) {
                throw new InvalidIdempotencyConfigException("uri", redact(uri), rule
                        + " (only database 0, no options)");
            }
            List<String> seeds = new ArrayList<>();
            for (String hostPort : hosts.split(",", -1)) {
                String seed = "redis://" + credentials + hostPort;
                URI parsed = parseUri(seed);
                if (parsed.getPort() == -1 || parsed.getPath() != null && !parsed.getPath().isEmpty()) {
                    throw new InvalidIdempotencyConfigException("uri", redact(uri), rule);
                }
                seeds.add(seed);
            }
            return seeds;
        }

        private static URI parseUri(String uri) {
            String rule = "uri must look like redis://host[:port][/database] or rediss://...";
            if (uri == null) {
                throw new InvalidIdempotencyConfigException("uri", null, rule);
            }
            try {
                URI parsed = new URI(uri);
                String scheme = parsed.getScheme();
                if (!("redis".equals(scheme) || "rediss".equals(scheme)) || parsed.getHost() == null) {
                    throw new InvalidIdempotencyConfigException("uri", redact(uri), rule);
                }
                return parsed;
            } catch (URISyntaxException e) {
                throw new InvalidIdempotencyConfigException("uri", redact(uri), rule);
            }
        }

        /** The URI without what sits before '@', which may be a password. */
        private static String redact(String uri) {
            int at = uri.lastIndexOf('@');
            int scheme = uri.indexOf("://");
            return at > scheme && scheme >= 0 ? uri.substring(0, scheme + 3) + "***" + uri.substring(at) : uri;
        }

        /**
         * Requires {@code value} to be a timeout a millisecond timer can hold: at least 1 ms, at most
         * {@code Integer.MAX_VALUE} ms (about 24 days).
         */
        private static void requireMillisecondTimer(String setting, Duration value, String why) {
            if (value.compareTo(MIN_MILLIS) < 0 || value.compareTo(MAX_INT_MILLIS) > 0) {
                throw new InvalidIdempotencyConfigException(setting, value, setting + " must be between 1 ms and "
                        + Integer.MAX_VALUE + " ms: " + why);
            }
        }

        private static void requirePositive(String setting, Duration value) {
            if (value.isNegative() || value.isZero()) {
                throw new InvalidIdempotencyConfigException(setting, value, setting + " must be positive");
            }
        }
    }
}
