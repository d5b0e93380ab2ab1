package dev.idemlab.lab.infra;

import dev.idemlab.idempotency.testsupport.LocalRedis;
import dev.idemlab.idempotency.testsupport.TestRedis;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Finds a Redis server in the documented order (DESIGN section 5): the URL the user gave, a
 * {@code redis-server} on PATH, the binary bundled with the lab, a {@code redis:7} container; or
 * the one origin {@link ProvisioningOptions#redisFrom()} forces. The first that works wins; if none
 * does, the error lists what each origin said and how to get a server.
 *
 * <p>Stateless and thread-safe.
 */
final class RedisProvisioner {

    static final String BINARY = "redis-server";

    private static final List<Origin> ORDER = List.of(Origin.URL, Origin.SYSTEM, Origin.BUNDLED, Origin.CONTAINER);
    private static final String HOW = "Give a server with --redis-url redis://host:port (or "
            + ProvisioningOptions.REDIS_URL_ENV + "), put " + BINARY + " on PATH, or start Docker.";

    /**
     * Where the lab's server is: a URL, or a private server plus the way to start another one of
     * the same origin (for outages).
     *
     * @param origin where it came from
     * @param uri where a client connects
     * @param server the private server, or {@code null} when the user gave the URL
     * @param launcher starts another private server of the same origin, or {@code null} for a URL
     */
    record Provisioned(Origin origin, String uri, PrivateRedisServer server, Supplier<PrivateRedisServer> launcher) { }

    private RedisProvisioner() { }

    /**
     * @throws ProvisioningException if no origin gave a server, saying what was tried and how to get one
     */
    static Provisioned provision(ProvisioningOptions options) {
        Origin forced = options.redisFrom();
        if (forced == Origin.CLUSTER) {
            throw new ProvisioningException("a cluster is provisioned by RedisClusterBackend, not as one server", null);
        }
        if (forced == Origin.IN_PROCESS) {
            throw new ProvisioningException("redis cannot run in-process; choose url, system, bundled or container", null);
        }
        List<String> tried = new ArrayList<>();
        for (Origin origin : forced != null ? List.of(forced) : ORDER) {
            if (origin == Origin.URL) {
                String url = options.effectiveRedisUrl();
                if (url != null) {
                    return new Provisioned(Origin.URL, url, null, null);
                }
                tried.add("url: none given");
                continue;
            }
            Optional<Supplier<PrivateRedisServer>> launcher = launcher(origin, tried);
            if (launcher.isPresent()) {
                try {
                    PrivateRedisServer server = launcher.get().get();
                    return new Provisioned(origin, server.uri(), server, launcher.get());
                } catch (ProvisioningException e) {
                    tried.add(origin.id() + ": " + e.getMessage());
                }
            }
        }
        throw new ProvisioningException("no Redis server could be had (tried " + String.join("; ", tried) + "). "
                + HOW, null);
    }

    /**
     * Starts a private server from the first origin that works, never a URL: for an outage next to a
     * server the user gave.
     *
     * @throws ProvisioningException if no private origin gave a server
     */
    static PrivateRedisServer startPrivate() {
        List<String> tried = new ArrayList<>();
        for (Origin origin : List.of(Origin.SYSTEM, Origin.BUNDLED, Origin.CONTAINER)) {
            Optional<Supplier<PrivateRedisServer>> launcher = launcher(origin, tried);
            if (launcher.isPresent()) {
                try {
                    return launcher.get().get();
                } catch (ProvisioningException e) {
                    tried.add(origin.id() + ": " + e.getMessage());
                }
            }
        }
        throw new ProvisioningException("no private Redis server could be started (tried " + String.join("; ", tried)
                + "). Put " + BINARY + " on PATH, or start Docker.", null);
    }

    /**
     * Starts one node of a local cluster, with {@code nodeArgs}, from the first local binary that works:
     * a {@code redis-server} on PATH, else the bundled one (a container cannot be a node the lab signals).
     *
     * @throws ProvisioningException if there is no local binary, or it does not start
     */
    static RedisProcess startClusterNode(List<String> nodeArgs) {
        return startLocal(nodeArgs, "a local cluster");
    }

    /**
     * Starts a local server (as {@link #startClusterNode}) whose RDB snapshot is {@code dir}/dump.rdb:
     * it loads that file when it starts, and SAVE or BGSAVE write it. It never saves by itself, on
     * shutdown neither, so the file holds exactly the last snapshot asked for.
     *
     * @throws ProvisioningException if there is no local binary, or it does not start
     */
    static RedisProcess startWithDataIn(Path dir) {
        return startLocal(List.of("--dir", dir.toAbsolutePath().toString(), "--dbfilename", "dump.rdb"),
                "a server with its own data directory");
    }

    private static RedisProcess startLocal(List<String> args, String purpose) {
        Optional<Path> system = systemBinary();
        if (system.isPresent()) {
            return RedisProcess.start(system.get(), Origin.SYSTEM, List.of(), args);
        }
        Path binary;
        try {
            binary = LocalRedis.bundledExecutable();
        } catch (RuntimeException e) {
            throw new ProvisioningException("no " + BINARY + " on PATH and " + e.getMessage() + ": " + purpose
                    + " needs one", e);
        }
        return RedisProcess.start(binary, Origin.BUNDLED, ServerRegistry.existing(binary.getParent()), args);
    }

    /** A way to start servers of {@code origin}, or empty (with the reason added to {@code tried}). */
    private static Optional<Supplier<PrivateRedisServer>> launcher(Origin origin, List<String> tried) {
        switch (origin) {
            case SYSTEM -> {
                Optional<Path> binary = systemBinary();
                if (binary.isEmpty()) {
                    tried.add("system: no " + BINARY + " on PATH");
                }
                return binary.map(path -> () -> RedisProcess.start(path, Origin.SYSTEM));
            }
            case BUNDLED -> {
                try {
                    Path binary = LocalRedis.bundledExecutable();
                    // The binary was extracted to a temporary directory of this JVM's: it goes with a
                    // server left behind by a killed lab.
                    return Optional.of(() -> RedisProcess.start(binary, Origin.BUNDLED,
                            ServerRegistry.existing(binary.getParent())));
                } catch (RuntimeException e) {
                    tried.add("bundled: " + e.getMessage());
                    return Optional.empty();
                }
            }
            case CONTAINER -> {
                if (!dockerAvailable()) {
                    tried.add("container: " + Docker.UNAVAILABLE);
                    return Optional.empty();
                }
                return Optional.of(RedisContainer::start);
            }
            default -> throw new IllegalArgumentException("not a launchable origin: " + origin);
        }
    }

    /** The first {@value #BINARY} on PATH, found as the store modules' tests find theirs. */
    static Optional<Path> systemBinary() {
        return TestRedis.systemBinary();
    }

    private static boolean dockerAvailable() {
        return Docker.available();
    }
}
