package dev.idemlab.lab.infra;

import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.StoreDescription;
import dev.idemlab.idempotency.store.redis.RedisIdempotencyStore;
import dev.idemlab.idempotency.store.redis.RedisStoreConfig;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.Optional;
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

    private static final Duration CLEANUP_TIMEOUT = Duration.ofSeconds(5);

    private final String uri;
    private final ServerInfo server;
    private static final java.time.Duration VERIFY_PATIENCE = java.time.Duration.ofSeconds(10);
    private static final java.time.Duration VERIFY_PAUSE = java.time.Duration.ofMillis(200);

    private final PrivateRedisServer privateServer;
    private final Supplier<PrivateRedisServer> launcher;
    /** Keeps the keys of two lab runs on one shared server apart. */
    private final String runId;
    private final AtomicLong storesOpened = new AtomicLong();

    private RedisBackend(RedisProvisioner.Provisioned provisioned, String version, String address, String runId,
                         String durability) {
        this.uri = provisioned.uri();
        this.privateServer = provisioned.server();
        this.launcher = provisioned.launcher();
        this.runId = runId;
        this.server = new ServerInfo("redis", version, provisioned.origin(), address, durability);
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
        boolean givenByUrl = provisioned.server() == null;
        if (givenByUrl) {
            // One connect first: a dead address fails now, in one line, not after a client's retries.
            Listening.require(addressOf(provisioned), "the Redis " + provisioned.origin().description());
        }
        try (RedisIdempotencyStore probe = new RedisIdempotencyStore(config(provisioned.uri(), "idemlab:probe:"))) {
            // A server the lab has just started may miss a cold client's first connect: give it a few
            // seconds. A server given by URL was already running: one try.
            verify(probe, givenByUrl ? java.time.Duration.ZERO : VERIFY_PATIENCE);
            StoreDescription description = probe.describe();
            String durability = ServerDurability.redis(provisioned.uri(), options.durable() && !givenByUrl);
            return new RedisBackend(provisioned, description.serverVersion(), description.address(), runId, durability);
        } catch (ProvisioningException e) {
            if (provisioned.server() != null) {
                provisioned.server().close();
            }
            throw e;
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
     * A new store client, with keys of its own as {@link #openStore()} gives, that connects to this
     * server through {@code 127.0.0.1:localPort} (a proxy in front of it, for the network's faults).
     * The caller closes it.
     */
    public RedisIdempotencyStore openStoreThrough(int localPort) {
        return openStoreThrough(localPort, nextKeyPrefix());
    }

    /**
     * As {@link #openStoreThrough(int)}, under {@code keyPrefix}: another client of the records of the
     * store that has that prefix. The caller closes it.
     */
    public RedisIdempotencyStore openStoreThrough(int localPort, String keyPrefix) {
        return new RedisIdempotencyStore(config("redis://127.0.0.1:" + localPort, keyPrefix));
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

    /**
     * Starts a second private server for a caller that connects clients of its own to it and then
     * stops it by closing it: the store-down experiment on a library that makes its own connections.
     * It comes from the lab's own origin; when the lab's server was given by URL, from the first
     * private origin that works, so that the user's server is never stopped. The caller closes it.
     *
     * @throws ProvisioningException when no private server could be started
     */
    public PrivateRedisServer startServerToStop() {
        return launcher != null ? launcher.get() : RedisProvisioner.startPrivate();
    }

    /**
     * On a server given by URL: deletes every key of this run (they all start with the run's prefix),
     * by SCAN and DEL, and says how many; if that fails, says which prefix is left and that it expires.
     */
    @Override
    public Optional<String> cleanUp() {
        if (privateServer != null || storesOpened.get() == 0) {
            return Optional.empty();
        }
        String pattern = runPrefix() + "*";
        RedisClient client = RedisClient.create(uri);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            connection.setTimeout(CLEANUP_TIMEOUT);
            RedisCommands<String, String> commands = connection.sync();
            ScanArgs matching = ScanArgs.Builder.matches(pattern).limit(1000);
            long removed = 0;
            KeyScanCursor<String> cursor = commands.scan(matching);
            while (true) {
                if (!cursor.getKeys().isEmpty()) {
                    removed += commands.del(cursor.getKeys().toArray(String[]::new));
                }
                if (cursor.isFinished()) {
                    break;
                }
                cursor = commands.scan(cursor, matching);
            }
            return Optional.of("removed the " + removed + " keys this run wrote (" + pattern + ") from the Redis at "
                    + server.address());
        } catch (RuntimeException e) {
            return Optional.of("could not remove the keys this run wrote (" + pattern + ") from the Redis at "
                    + server.address() + ": " + e.getMessage() + "; they expire within 24 h");
        } finally {
            client.shutdown(Duration.ZERO, CLEANUP_TIMEOUT);
        }
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
            verify(store, VERIFY_PATIENCE);
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
        return runPrefix() + storesOpened.incrementAndGet() + ":";
    }

    /** What every key of this run starts with. */
    private String runPrefix() {
        return "idemlab:" + runId + ":";
    }

    private static RedisStoreConfig config(String uri, String keyPrefix) {
        return RedisStoreConfig.custom().uri(uri).keyPrefix(keyPrefix).build();
    }

    /**
     * One real round trip, so that a server that is there but broken is found out now; tried again
     * within {@code patience}: a server that has just answered PING can still miss a cold client's
     * first connect on a loaded machine.
     */
    private static void verify(RedisIdempotencyStore store, java.time.Duration patience) {
        long deadline = System.nanoTime() + patience.toNanos();
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
