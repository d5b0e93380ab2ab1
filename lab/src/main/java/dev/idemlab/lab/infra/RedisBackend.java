package dev.idemlab.lab.infra;

import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.StoreDescription;
import dev.idemlab.idempotency.store.redis.RedisIdempotencyStore;
import dev.idemlab.idempotency.store.redis.RedisStoreConfig;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Redis for a lab run: the server {@link RedisProvisioner} found, its version read once, and a
 * store per {@link #openStore()} under a key prefix of its own. Closing the backend stops the
 * private server it started; a server given by URL is never stopped.
 *
 * <p>Thread-safe.
 */
public final class RedisBackend implements StoreBackend {

    private final String uri;
    private final ServerInfo server;
    private static final java.time.Duration VERIFY_PATIENCE = java.time.Duration.ofSeconds(10);
    private static final java.time.Duration VERIFY_PAUSE = java.time.Duration.ofMillis(200);

    private final PrivateRedisServer privateServer;
    private final Supplier<PrivateRedisServer> launcher;
    /** Keeps the keys of two lab runs on one shared server apart. */
    private final String runId;
    private final AtomicLong storesOpened = new AtomicLong();

    private RedisBackend(RedisProvisioner.Provisioned provisioned, String version, String address, String runId) {
        this.uri = provisioned.uri();
        this.privateServer = provisioned.server();
        this.launcher = provisioned.launcher();
        this.runId = runId;
        this.server = new ServerInfo("redis", version, provisioned.origin(), address);
    }

    /**
     * Finds or starts a server and checks that it answers.
     *
     * @throws ProvisioningException when no server could be had, saying how to get one
     */
    public static RedisBackend open(ProvisioningOptions options) {
        RedisProvisioner.Provisioned provisioned = RedisProvisioner.provision(options);
        byte[] seed = new byte[4];
        new SecureRandom().nextBytes(seed);
        String runId = HexFormat.of().formatHex(seed);
        try (RedisIdempotencyStore probe = new RedisIdempotencyStore(config(provisioned.uri(), "idemlab:probe:"))) {
            verify(probe);
            StoreDescription description = probe.describe();
            return new RedisBackend(provisioned, description.serverVersion(), description.address(), runId);
        } catch (IdempotencyStoreException e) {
            if (provisioned.server() != null) {
                provisioned.server().close();
            }
            throw new ProvisioningException("the Redis server at " + addressOf(provisioned)
                    + " (" + provisioned.origin().description() + ") does not answer: " + e.getMessage(), e);
        }
    }

    @Override
    public String name() {
        return "redis";
    }

    @Override
    public ServerInfo server() {
        return server;
    }

    /** Where clients connect; may carry the user's password, so never print it. */
    public String uri() {
        return uri;
    }

    /**
     * The pid of the private server the lab started, for the failure lab's stalls (SIGSTOP, SIGCONT);
     * empty for a server given by URL or run in a container, which the lab never signals.
     */
    public java.util.OptionalLong serverPid() {
        return privateServer == null ? java.util.OptionalLong.empty() : privateServer.pid();
    }

    @Override
    public IdempotencyStore openStore() {
        return new RedisIdempotencyStore(config(uri, nextKeyPrefix()));
    }

    /**
     * For a private server: starts a second one of the same origin, connects a store to it, checks
     * that it works, then stops that server. For a URL: a store on a local port where nothing
     * listens; the user's server is left alone.
     */
    @Override
    public StoreOutage openOutage() {
        return launcher == null ? outageWithoutServer() : outageOfStoppedServer();
    }

    @Override
    public void close() {
        if (privateServer != null) {
            privateServer.close();
        }
    }

    private StoreOutage outageOfStoppedServer() {
        PrivateRedisServer doomed = launcher.get();
        RedisIdempotencyStore store = new RedisIdempotencyStore(config(doomed.uri(), nextKeyPrefix()));
        try {
            verify(store);
        } catch (IdempotencyStoreException e) {
            store.close();
            doomed.close();
            throw new ProvisioningException("the second Redis server for the outage does not answer: "
                    + e.getMessage(), e);
        }
        doomed.close();
        return new Outage(store, "stopped a second private redis-server (" + doomed.origin().description()
                + ") at " + doomed.address() + " after connecting the store to it; the lab's own server at "
                + server.address() + " keeps running");
    }

    private StoreOutage outageWithoutServer() {
        String deadAddress = "127.0.0.1:" + RedisProcess.freeLocalPort();
        RedisIdempotencyStore store = new RedisIdempotencyStore(config("redis://" + deadAddress, nextKeyPrefix()));
        return new Outage(store, "pointed the store at " + deadAddress + ", where nothing listens; the server at "
                + server.address() + " given by URL was left alone");
    }

    private String nextKeyPrefix() {
        return "idemlab:" + runId + ":" + storesOpened.incrementAndGet() + ":";
    }

    private static RedisStoreConfig config(String uri, String keyPrefix) {
        return RedisStoreConfig.custom().uri(uri).keyPrefix(keyPrefix).build();
    }

    /** One real round trip, so that a server that is there but broken is found out now. */
    /**
     * One lookup through the store, tried again for a few seconds: a server that has just answered
     * PING can still miss a cold client's first connect on a loaded machine.
     */
    private static void verify(RedisIdempotencyStore store) {
        long deadline = System.nanoTime() + VERIFY_PATIENCE.toNanos();
        while (true) {
            try {
                store.lookup("idemlab.probe:" + System.identityHashCode(store));
                return;
            } catch (IdempotencyStoreException notYet) {
                if (System.nanoTime() - deadline >= 0) {
                    throw notYet;
                }
                java.util.concurrent.locks.LockSupport.parkNanos(VERIFY_PAUSE.toNanos());
            }
        }
    }

    private static String addressOf(RedisProvisioner.Provisioned provisioned) {
        return provisioned.server() != null
                ? provisioned.server().address()
                : RedisStoreConfig.of(provisioned.uri()).address();
    }

    /** A store whose server is gone, and how that came about. */
    private record Outage(IdempotencyStore store, String how) implements StoreOutage {
        @Override
        public void close() {
            store.close();
        }
    }
}
