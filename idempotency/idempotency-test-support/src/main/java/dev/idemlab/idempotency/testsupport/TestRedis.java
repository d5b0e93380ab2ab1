package dev.idemlab.idempotency.testsupport;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * The Redis a test runs against, from the first origin of DESIGN section 5 that works: the server
 * given by {@value #URL_ENV}, a {@code redis-server} found on PATH, the binary bundled in
 * embedded-redis. The last origin of the lab's runs, a {@code redis:7} container when Docker is
 * there, is not tried here: it would put Testcontainers on every store module's test class path,
 * and the bundled binary already covers Linux and macOS on x86_64 and arm64. So no test needs
 * Docker.
 *
 * <p>A server given by URL is used as a scratch server, as the lab uses it: the test's keys go
 * under {@link #keyPrefix()}, of this object alone, and {@link #close()} deletes them (SCAN and DEL
 * under that prefix) and leaves the server running. Nothing else there is touched: a test that
 * flushes, saves or restarts a server asks {@link #providePrivate(List)} for one of its own.
 * A private server is stopped by {@link #close()}, with its directory.
 *
 * <p>{@link #toString()} says which server, its version and where it came from; {@link #provide()}
 * prints that line, so that a test run's output names the server it ran against.
 *
 * <p>Thread-safe.
 */
public final class TestRedis implements AutoCloseable {

    /** The environment variable naming a server of the user's: {@code redis://[:password@]host[:port][/db]}. */
    public static final String URL_ENV = "IDEMLAB_REDIS_URL";
    /** The name of the binary looked for on PATH. */
    public static final String BINARY = "redis-server";

    private static final String HOW = "Set " + URL_ENV + "=redis://host:port, or put " + BINARY + " on PATH"
            + " (the bundled binary covers Linux and macOS on x86_64 and arm64; the lab's runs also try a redis:7"
            + " container when Docker is there)";

    private final String uri;
    private final ServerOrigin origin;
    private final String version;
    private final String keyPrefix;
    private final LocalRedis local;
    private final RedisUrl url;
    private final String from;
    private boolean closed;

    private TestRedis(String uri, ServerOrigin origin, String version, LocalRedis local, RedisUrl url, String from) {
        this.uri = uri;
        this.origin = origin;
        this.version = version;
        this.local = local;
        this.url = url;
        this.from = from;
        byte[] seed = new byte[4];
        new SecureRandom().nextBytes(seed);
        this.keyPrefix = "idemlab-test:" + HexFormat.of().formatHex(seed) + ":";
    }

    /**
     * The server given by {@value #URL_ENV}, else a private one from a {@code redis-server} on PATH,
     * else from the bundled binary. Prints which one it is.
     *
     * @throws IllegalStateException if the URL is malformed or its server does not answer, or no
     *     private server starts; the message says what was tried and how to get a server
     */
    public static TestRedis provide() {
        return announce(provide(System.getenv(URL_ENV), System.getenv("PATH")));
    }

    /**
     * A private server, never the one given by URL: from a {@code redis-server} on PATH, else the
     * bundled binary, with {@code extraArguments} after {@link LocalRedis}'s defaults (a data
     * directory of the test's, say). For a test that flushes, saves or restarts its server.
     *
     * @throws IllegalStateException if no private server starts, saying what was tried
     */
    public static TestRedis providePrivate(List<String> extraArguments) {
        return announce(startPrivate(System.getenv("PATH"), extraArguments, new ArrayList<>()));
    }

    /** As {@link #provide()}, with the URL and PATH given: for tests of the order itself. */
    static TestRedis provide(String url, String path) {
        if (url != null && !url.isBlank()) {
            return ofUrl(url.strip());
        }
        return startPrivate(path, List.of(), new ArrayList<>(List.of("url: " + URL_ENV + " not set")));
    }

    /** Where a client connects; may carry the user's password, so never print it. */
    public String uri() {
        return uri;
    }

    /** {@code host:port}, as the stores' {@code describe()} gives it. */
    public String address() {
        return local != null ? local.address() : url.host() + ":" + url.port();
    }

    /** Where the server came from. */
    public ServerOrigin origin() {
        return origin;
    }

    /** Whether this object started the server (and {@link #close()} stops it). */
    public boolean isPrivate() {
        return local != null;
    }

    /** The server's {@code redis_version}, or {@code unknown} when it did not say. */
    public String version() {
        return version;
    }

    /**
     * What every key of the test's should start with: a prefix of this object alone, so that tests
     * on a server given by URL never meet another client's keys, and {@link #close()} can remove
     * theirs. Use it as the store's key prefix.
     */
    public String keyPrefix() {
        return keyPrefix;
    }

    /** The private server's process (pid, directory), or empty for a server given by URL. */
    public Optional<LocalRedis> local() {
        return Optional.ofNullable(local);
    }

    /**
     * Stops a private server. On a server given by URL, deletes the keys under {@link #keyPrefix()}
     * and leaves the server running; if that fails, says on standard error which prefix is left.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (local != null) {
            local.close();
            return;
        }
        try (RespConnection connection = url.connect()) {
            long removed = deleteUnder(connection, keyPrefix);
            System.out.println("removed the " + removed + " keys under " + keyPrefix + " from the Redis at " + address()
                    + " (" + from + "), which keeps running");
        } catch (IOException e) {
            System.err.println("could not remove the keys under " + keyPrefix + " from the Redis at " + address()
                    + ": " + e.getMessage());
        }
    }

    /** {@code redis 7.2.4 at 127.0.0.1:6379 (given by URL in IDEMLAB_REDIS_URL)}. */
    @Override
    public String toString() {
        return "redis " + version + " at " + address() + " (" + from + ")";
    }

    private static TestRedis announce(TestRedis redis) {
        System.out.println("redis for tests: " + redis);
        return redis;
    }

    private static TestRedis ofUrl(String uri) {
        RedisUrl url = RedisUrl.parse(uri);
        try (RespConnection connection = url.connect()) {
            Object info = connection.command("INFO", "server");
            String version = RespConnection.infoField(info, "redis_version").orElse("unknown");
            return new TestRedis(uri, ServerOrigin.URL, version, null, url,
                    ServerOrigin.URL.description() + " in " + URL_ENV + ", used as a scratch server: keys under a"
                            + " prefix of the test's, removed after it");
        } catch (IOException e) {
            throw new IllegalStateException("the Redis given by " + URL_ENV + " at " + url.host() + ":" + url.port()
                    + " does not answer: " + e.getMessage(), e);
        }
    }

    private static TestRedis startPrivate(String path, List<String> extraArguments, List<String> tried) {
        Optional<Path> system = onPath(path);
        if (system.isPresent()) {
            try {
                return ofLocal(LocalRedis.start(system.get(), extraArguments, (pid, dir) -> { }), ServerOrigin.SYSTEM,
                        ServerOrigin.SYSTEM.description() + ": " + system.get());
            } catch (IllegalStateException e) {
                tried.add("system: " + e.getMessage());
            }
        } else {
            tried.add("system: no " + BINARY + " on PATH");
        }
        try {
            return ofLocal(LocalRedis.start(LocalRedis.bundledExecutable(), extraArguments), ServerOrigin.BUNDLED,
                    ServerOrigin.BUNDLED.description() + " from embedded-redis");
        } catch (IllegalStateException e) {
            tried.add("bundled: " + e.getMessage());
        }
        throw new IllegalStateException("no Redis server for the tests (tried " + String.join("; ", tried) + "). " + HOW);
    }

    private static TestRedis ofLocal(LocalRedis local, ServerOrigin origin, String from) {
        return new TestRedis(local.uri(), origin, local.version(), local, null, from);
    }

    /** The first executable {@value #BINARY} on this process's PATH, as a shell would find it. */
    public static Optional<Path> systemBinary() {
        return onPath(System.getenv("PATH"));
    }

    /** The first executable {@value #BINARY} in {@code path}, as a shell would find it. */
    static Optional<Path> onPath(String path) {
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (dir.isBlank()) {
                continue;
            }
            Path candidate = Path.of(dir, BINARY);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    private static long deleteUnder(RespConnection connection, String prefix) throws IOException {
        long removed = 0;
        String cursor = "0";
        do {
            List<?> page = (List<?>) connection.command("SCAN", cursor, "MATCH", prefix + "*", "COUNT", "1000");
            cursor = (String) page.get(0);
            List<?> keys = (List<?>) page.get(1);
            if (!keys.isEmpty()) {
                List<String> del = new ArrayList<>(keys.size() + 1);
                del.add("DEL");
                keys.forEach(key -> del.add((String) key));
                removed += (Long) connection.command(del.toArray(String[]::new));
            }
        } while (!cursor.equals("0"));
        return removed;
    }

    /** A {@code redis://} or {@code rediss://} URL, taken apart. */
    private record RedisUrl(String host, int port, boolean tls, String user, String password, int database) {

        static RedisUrl parse(String uri) {
            URI parsed;
            try {
                parsed = new URI(uri);
            } catch (URISyntaxException e) {
                throw new IllegalStateException(URL_ENV + " is not a URL (expected redis://[:password@]host[:port][/db])");
            }
            String scheme = parsed.getScheme() == null ? "" : parsed.getScheme().toLowerCase(java.util.Locale.ROOT);
            if (!scheme.equals("redis") && !scheme.equals("rediss")) {
                throw new IllegalStateException(URL_ENV + " must be redis://[:password@]host[:port][/db] or rediss://"
                        + " for the store modules' tests (a Redis Cluster is tested by the lab)");
            }
            if (parsed.getHost() == null) {
                throw new IllegalStateException(URL_ENV + " names no host (expected redis://[:password@]host[:port][/db])");
            }
            String user = null;
            String password = null;
            String info = parsed.getUserInfo();
            if (info != null && !info.isEmpty()) {
                int colon = info.indexOf(':');
                user = colon > 0 ? info.substring(0, colon) : null;
                password = colon >= 0 ? info.substring(colon + 1) : info;
            }
            String path = parsed.getPath() == null ? "" : parsed.getPath().replace("/", "");
            if (!path.matches("\\d{0,2}")) {
                throw new IllegalStateException(URL_ENV + ": the path must be a database number");
            }
            int database = path.isEmpty() ? 0 : Integer.parseInt(path);
            return new RedisUrl(parsed.getHost(), parsed.getPort() == -1 ? 6379 : parsed.getPort(),
                    scheme.equals("rediss"), user, password, database);
        }

        /** Without the password. */
        @Override
        public String toString() {
            return (tls ? "rediss://" : "redis://") + host + ":" + port + "/" + database;
        }

        RespConnection connect() throws IOException {
            RespConnection connection = RespConnection.open(host, port, tls, 2000, 5000);
            try {
                if (password != null) {
                    if (user != null) {
                        connection.command("AUTH", user, password);
                    } else {
                        connection.command("AUTH", password);
                    }
                }
                if (database != 0) {
                    connection.command("SELECT", Integer.toString(database));
                }
                return connection;
            } catch (IOException | RuntimeException e) {
                connection.close();
                throw e;
            }
        }
    }
}
