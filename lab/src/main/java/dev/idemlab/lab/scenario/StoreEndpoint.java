package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.store.postgres.PostgresIdempotencyStore;
import dev.idemlab.idempotency.store.postgres.PostgresStoreConfig;
import dev.idemlab.idempotency.store.redis.RedisIdempotencyStore;
import dev.idemlab.idempotency.store.redis.RedisStoreConfig;
import dev.idemlab.lab.infra.PostgresBackend;
import dev.idemlab.lab.infra.RedisBackend;
import dev.idemlab.lab.infra.StoreBackend;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Where a store's server is, so that another process (a holder in a child JVM) can reach the very
 * records this one sees: the same server and the same key prefix. Travels to the child in its
 * environment, never on its command line, since a URL may carry a password.
 *
 * @param kind redis, redis-cluster or postgres
 * @param url the Redis URI or the JDBC URL
 * @param user the PostgreSQL user, or {@code null}
 * @param password the PostgreSQL password, or {@code null}
 */
public record StoreEndpoint(String kind, String url, String user, String password) {

    private static final String CLUSTER = "redis-cluster";
    private static final String KIND = "IDEMLAB_HOLDER_STORE";
    private static final String URL = "IDEMLAB_HOLDER_URL";
    private static final String USER = "IDEMLAB_HOLDER_USER";
    private static final String PASSWORD = "IDEMLAB_HOLDER_PASSWORD";

    /** The endpoint of a network store; empty for the memory store, which no other process can reach. */
    public static Optional<StoreEndpoint> of(StoreBackend backend) {
        if (backend instanceof RedisBackend redis) {
            return Optional.of(new StoreEndpoint("redis", redis.uri(), null, null));
        }
        if (backend instanceof PostgresBackend postgres) {
            return Optional.of(new StoreEndpoint("postgres", postgres.jdbcUrl(), postgres.user(), postgres.password()));
        }
        return Optional.empty();
    }

    /**
     * The endpoint {@code store} itself connects to (through whatever proxy it goes), so that a child's
     * store opened on it with {@link #prefixOf} meets its very records; empty for a store no other
     * process can reach.
     */
    public static Optional<StoreEndpoint> sameAs(IdempotencyStore store) {
        if (store instanceof RedisIdempotencyStore redis) {
            return Optional.of(new StoreEndpoint(redis.config().cluster() ? CLUSTER : "redis", redis.config().uri(),
                    null, null));
        }
        if (store instanceof PostgresIdempotencyStore postgres) {
            PostgresStoreConfig config = postgres.config();
            // A child opens the default table by the URL: a store on a DataSource, or on another table, it cannot reach.
            if (config.jdbcUrl() == null || !config.table().equals(PostgresStoreConfig.DEFAULT_TABLE)) {
                return Optional.empty();
            }
            return Optional.of(new StoreEndpoint("postgres", config.jdbcUrl(), config.user(), config.password()));
        }
        return Optional.empty();
    }

    /** The prefix of {@code store}'s keys, for a child's store on {@link #sameAs}: its key or namespace prefix. */
    public static String prefixOf(IdempotencyStore store) {
        if (store instanceof RedisIdempotencyStore redis) {
            return redis.config().keyPrefix();
        }
        if (store instanceof PostgresIdempotencyStore postgres) {
            return postgres.config().namespacePrefix();
        }
        throw new IllegalArgumentException(store.getClass().getSimpleName() + " cannot be reached from another process");
    }

    /** A store client on this server whose keys all start with {@code prefix}. The caller closes it. */
    public IdempotencyStore open(String prefix) {
        if (kind.equals("redis") || kind.equals(CLUSTER)) {
            return new RedisIdempotencyStore(RedisStoreConfig.custom().uri(url).keyPrefix(prefix)
                    .cluster(kind.equals(CLUSTER)).build());
        }
        return new PostgresIdempotencyStore(PostgresStoreConfig.custom(url).credentials(user, password)
                .namespacePrefix(prefix).build());
    }

    /**
     * For the Spring sample's environment: its Redis URI, or its DataSource's URL and credentials. Given in
     * the environment, never on its command line, where a password would show in the process list.
     */
    public Map<String, String> springEnvironment() {
        Map<String, String> env = new HashMap<>();
        if (kind.equals("redis")) {
            env.put("IDEMPOTENCY_REDIS_URI", url);
        } else {
            env.put("SPRING_DATASOURCE_URL", url);
            if (user != null) {
                env.put("SPRING_DATASOURCE_USERNAME", user);
            }
            if (password != null) {
                env.put("SPRING_DATASOURCE_PASSWORD", password);
            }
        }
        return env;
    }

    /** For a child process's environment. */
    Map<String, String> environment() {
        Map<String, String> env = new HashMap<>();
        env.put(KIND, kind);
        env.put(URL, url);
        if (user != null) {
            env.put(USER, user);
        }
        if (password != null) {
            env.put(PASSWORD, password);
        }
        return env;
    }

    /** In the child: the endpoint its parent passed. */
    public static StoreEndpoint fromEnvironment() {
        String kind = System.getenv(KIND);
        String url = System.getenv(URL);
        if (kind == null || url == null) {
            throw new IllegalStateException(KIND + " and " + URL + " must be set by the parent process");
        }
        return new StoreEndpoint(kind, url, System.getenv(USER), System.getenv(PASSWORD));
    }
}
