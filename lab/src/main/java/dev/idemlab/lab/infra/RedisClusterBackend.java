package dev.idemlab.lab.infra;

import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.StoreDescription;
import dev.idemlab.idempotency.store.redis.RedisIdempotencyStore;
import dev.idemlab.idempotency.store.redis.RedisStoreConfig;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.UnaryOperator;

/**
 * Redis Cluster for a lab run: the private {@link LocalRedisCluster} (three masters, three replicas),
 * or the user's cluster given by a {@code redis-cluster://host:port[,host:port...]} seed URL, and a
 * store per {@link #openStore()} under a key prefix of its own. Closing the backend stops the private
 * cluster; the user's is never touched beyond the keys this run wrote.
 *
 * <p>Thread-safe.
 */
public final class RedisClusterBackend implements StoreBackend {

    /** The store's name on the command line. */
    public static final String NAME = "redis-cluster";

    private static final Duration VERIFY_PATIENCE = Duration.ofSeconds(10);
    private static final Duration CLEANUP_TIMEOUT = Duration.ofSeconds(5);

    private final String seedUri;
    private final LocalRedisCluster local;
    private final ServerInfo server;
    private final String runId;
    private final AtomicLong storesOpened = new AtomicLong();

    private RedisClusterBackend(String seedUri, LocalRedisCluster local, ServerInfo server, String runId) {
        this.seedUri = seedUri;
        this.local = local;
        this.server = server;
        this.runId = runId;
    }

    /**
     * Whether {@code options} ask for a cluster when the plain {@code redis} store is named:
     * {@code --redis-from cluster}, or a {@code redis-cluster://} URL.
     */
    public static boolean asked(ProvisioningOptions options) {
        return options.redisFrom() == Origin.CLUSTER || isClusterUrl(options.effectiveRedisUrl());
    }

    /** Whether {@code url} is a cluster seed list. */
    public static boolean isClusterUrl(String url) {
        return url != null && url.trim().toLowerCase(Locale.ROOT).startsWith(RedisStoreConfig.CLUSTER_SCHEME + "://");
    }

    /**
     * The user's cluster when a {@code redis-cluster://} URL is given (and no other origin is forced),
     * else a private local cluster.
     *
     * @throws ProvisioningException when no cluster could be had or it does not answer
     */
    public static RedisClusterBackend open(ProvisioningOptions options) {
        String url = options.effectiveRedisUrl();
        boolean useUrl = options.redisFrom() != Origin.CLUSTER && isClusterUrl(url);
        if (options.redisFrom() == Origin.URL && !useUrl) {
            throw new ProvisioningException("--redis-from url on redis-cluster needs a cluster seed URL: "
                    + RedisStoreConfig.CLUSTER_SCHEME + "://host:port[,host:port...]", null);
        }
        if (options.redisFrom() != null && options.redisFrom() != Origin.URL && options.redisFrom() != Origin.CLUSTER) {
            throw new ProvisioningException("redis-cluster runs on a local cluster (--redis-from cluster) or on "
                    + "yours (--redis-url " + RedisStoreConfig.CLUSTER_SCHEME + "://...), not on --redis-from "
                    + options.redisFrom().id(), null);
        }
        byte[] seed = new byte[4];
        new SecureRandom().nextBytes(seed);
        String runId = HexFormat.of().formatHex(seed);
        LocalRedisCluster local = useUrl ? null : LocalRedisCluster.start();
        String seedUri = useUrl ? url.trim() : local.seedUri();
        try (RedisIdempotencyStore probe = new RedisIdempotencyStore(config(seedUri, "idemlab:probe:").build())) {
            verify(probe, useUrl ? Duration.ZERO : VERIFY_PATIENCE);
            StoreDescription description = probe.describe();
            ServerInfo info = new ServerInfo(NAME, description.serverVersion(), useUrl ? Origin.URL : Origin.CLUSTER,
                    useUrl ? description.address() : local.addresses());
            return new RedisClusterBackend(seedUri, local, info, runId);
        } catch (IdempotencyStoreException | ProvisioningException e) {
            if (local != null) {
                local.close();
            }
            throw new ProvisioningException("the Redis Cluster at " + RedisStoreConfig.of(seedUri).address()
                    + " does not answer: " + e.getMessage(), e);
        }
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public ServerInfo server() {
        return server;
    }

    /** The private cluster, for the experiments that play faults on its nodes; empty for the user's. */
    public Optional<LocalRedisCluster> localCluster() {
        return Optional.ofNullable(local);
    }

    @Override
    public IdempotencyStore openStore() {
        return openStore(UnaryOperator.identity());
    }

    /** A store like {@link #openStore()}, its config first passed through {@code tuning} (e.g. WAIT). */
    public RedisIdempotencyStore openStore(UnaryOperator<RedisStoreConfig.Builder> tuning) {
        return new RedisIdempotencyStore(tuning.apply(config(seedUri, nextKeyPrefix())).build());
    }

    /**
     * A store pointed at a seed address where nothing listens: the cluster itself keeps running (its
     * nodes going away one by one is the failover experiment's business).
     */
    @Override
    public StoreOutage openOutage() {
        String deadAddress = "127.0.0.1:" + RedisProcess.freeLocalPort();
        RedisIdempotencyStore store = new RedisIdempotencyStore(
                config(RedisStoreConfig.CLUSTER_SCHEME + "://" + deadAddress, nextKeyPrefix()).build());
        String how = "pointed the store at the cluster seed " + deadAddress + ", where nothing listens; the cluster at "
                + server.address() + " keeps running";
        return new StoreOutage() {
            @Override
            public IdempotencyStore store() {
                return store;
            }

            @Override
            public String how() {
                return how;
            }

            @Override
            public void close() {
                store.close();
            }
        };
    }

    /** On the user's cluster: deletes every key of this run from every master, by SCAN and DEL. */
    @Override
    public Optional<String> cleanUp() {
        if (local != null || storesOpened.get() == 0) {
            return Optional.empty();
        }
        String pattern = "idemlab:" + runId + ":*";
        List<RedisURI> seeds = RedisStoreConfig.of(seedUri).seedUris().stream().map(RedisURI::create).toList();
        RedisClusterClient client = RedisClusterClient.create(seeds);
        try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
            connection.setTimeout(CLEANUP_TIMEOUT);
            RedisAdvancedClusterCommands<String, String> commands = connection.sync();
            ScanArgs matching = ScanArgs.Builder.matches(pattern).limit(1000);
            long removed = 0;
            // The cluster client's SCAN walks every master in turn.
            KeyScanCursor<String> cursor = commands.scan(matching);
            while (true) {
                for (String key : cursor.getKeys()) {
                    removed += commands.del(key);
                }
                if (cursor.isFinished()) {
                    break;
                }
                cursor = commands.scan(cursor, matching);
            }
            return Optional.of("removed the " + removed + " keys this run wrote (" + pattern + ") from the Redis Cluster at "
                    + server.address());
        } catch (RuntimeException e) {
            return Optional.of("could not remove the keys this run wrote (" + pattern + ") from the Redis Cluster at "
                    + server.address() + ": " + e.getMessage() + "; records expire within 24 h, fence counters "
                    + "with their reservations");
        } finally {
            client.shutdown(Duration.ZERO, CLEANUP_TIMEOUT);
        }
    }

    @Override
    public void close() {
        if (local != null) {
            local.close();
        }
    }

    private String nextKeyPrefix() {
        return "idemlab:" + runId + ":" + storesOpened.incrementAndGet() + ":";
    }

    private static RedisStoreConfig.Builder config(String seedUri, String keyPrefix) {
        return RedisStoreConfig.custom().uri(seedUri).keyPrefix(keyPrefix);
    }

    /** One real round trip, tried again within {@code patience}: a cluster just formed may still be settling. */
    private static void verify(RedisIdempotencyStore store, Duration patience) {
        long deadline = System.nanoTime() + patience.toNanos();
        while (true) {
            try {
                store.lookup("idemlab.probe:" + System.identityHashCode(store));
                return;
            } catch (IdempotencyStoreException notYet) {
                if (System.nanoTime() - deadline >= 0) {
                    throw notYet;
                }
                LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
            }
        }
    }
}
