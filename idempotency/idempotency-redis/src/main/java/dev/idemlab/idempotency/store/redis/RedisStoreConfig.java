package dev.idemlab.idempotency.store.redis;

import dev.idemlab.idempotency.InvalidIdempotencyConfigException;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link RedisIdempotencyStore} reaches its server: the URI, the prefix of every key it
 * writes, and the timeouts that make a dead or hung server cost milliseconds instead of a minute.
 *
 * <p>Immutable and thread-safe; build one with {@link #custom()} or {@link #of(String)}. Every rule
 * is checked when the config is built.
 */
public final class RedisStoreConfig {

    /** Keeps idempotency records apart from whatever else lives in the same database. */
    /** How long calls fail fast after the server was unreachable, before a probe tries it again. */
    public static final Duration DEFAULT_CIRCUIT_COOL_DOWN = Duration.ofSeconds(1);
    public static final String DEFAULT_KEY_PREFIX = "idempotency:";
    /**
     * Long enough to ride out a stall of a loaded machine (at 250 ms the load harness saw timeouts
     * on a busy two-core box), short enough that a hung server fails the call within a second. A
     * server that is down costs nothing like it: while disconnected, commands are rejected at once.
     */
    public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(1);
    /** How long to wait for a TCP connection before the store counts the server as down. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(1);

    private final String uri;
    private final String keyPrefix;
    private final Duration commandTimeout;
    private final Duration connectTimeout;
    private final Duration circuitCoolDown;
    private final String host;
    private final int port;

    private RedisStoreConfig(Builder b, URI parsed) {
        this.uri = b.uri;
        this.keyPrefix = b.keyPrefix;
        this.commandTimeout = b.commandTimeout;
        this.connectTimeout = b.connectTimeout;
        this.circuitCoolDown = b.circuitCoolDown;
        this.host = parsed.getHost();
        this.port = parsed.getPort() == -1 ? 6379 : parsed.getPort();
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
                .circuitCoolDown(circuitCoolDown);
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

    /** {@code host:port} of the server, without credentials, for outputs. */
    public String address() {
        return host + ":" + port;
    }

    @Override
    public String toString() {
        // The URI may hold a password: print only the address.
        return "RedisStoreConfig{address=" + address() + ", keyPrefix='" + keyPrefix + "', commandTimeout="
                + commandTimeout + ", connectTimeout=" + connectTimeout + '}';
    }

    /** Builds a {@link RedisStoreConfig}. Not thread-safe. */
    public static final class Builder {

        private String uri;
        private String keyPrefix = DEFAULT_KEY_PREFIX;
        private Duration commandTimeout = DEFAULT_COMMAND_TIMEOUT;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private Duration circuitCoolDown = DEFAULT_CIRCUIT_COOL_DOWN;

        private Builder() { }

        /** The server: {@code redis://[password@]host[:port][/database]} or {@code rediss://...}. */
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

        /** How long a connection attempt may take; positive. */
        /** How long calls fail fast after the server was unreachable; positive. */
        public Builder circuitCoolDown(Duration circuitCoolDown) {
            this.circuitCoolDown = Objects.requireNonNull(circuitCoolDown, "circuitCoolDown");
            return this;
        }

        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = Objects.requireNonNull(connectTimeout, "connectTimeout");
            return this;
        }

        /**
         * @throws InvalidIdempotencyConfigException naming the rule a value breaks
         */
        public RedisStoreConfig build() {
            URI parsed = parseUri(uri);
            for (int i = 0; i < keyPrefix.length(); i++) {
                char c = keyPrefix.charAt(i);
                if (Character.isISOControl(c) || c == '{' || c == '}') {
                    throw new InvalidIdempotencyConfigException("keyPrefix", keyPrefix,
                            "keyPrefix must not contain control characters or braces (a brace ends the prefix)");
                }
            }
            requirePositive("commandTimeout", commandTimeout);
            requirePositive("connectTimeout", connectTimeout);
            requirePositive("circuitCoolDown", circuitCoolDown);
            return new RedisStoreConfig(this, parsed);
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

        private static void requirePositive(String setting, Duration value) {
            if (value.isNegative() || value.isZero()) {
                throw new InvalidIdempotencyConfigException(setting, value, setting + " must be positive");
            }
        }
    }
}
