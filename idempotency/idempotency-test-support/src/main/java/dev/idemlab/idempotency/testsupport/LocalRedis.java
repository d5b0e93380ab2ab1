package dev.idemlab.idempotency.testsupport;

import redis.embedded.core.ExecutableProvider;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.stream.Stream;

/**
 * A private {@code redis-server} process: bound to 127.0.0.1 on an ephemeral port, without
 * persistence, its working directory and log in a fresh temporary directory. By default the binary
 * is the one bundled in embedded-redis, so a test needs no Redis installed.
 *
 * <p>{@code start} returns once the server has answered PING on its port, never after a guessed
 * delay, and {@code INFO server} there named this object's process (or a child of it) as the one
 * answering: another process may take the port between the probe that found it free and our
 * server's bind, and then our server exits while that other one answers PING; such a start is
 * retried on another port, never handed out. {@link #close()} stops the process this object started, and no other, then removes its
 * directory; a JVM shutdown hook does the same for a server nobody closed (a test run aborted
 * between {@code @BeforeAll} and {@code @AfterAll}). Use it with try-with-resources, or close it
 * in {@code @AfterAll}: it runs whether or not the tests passed.
 *
 * <p>Why not embedded-redis's own {@code RedisServer}: it waits for a log line with no time limit,
 * and keeps its process private, so neither its pid nor a hung start could be dealt with.
 *
 * <p>Thread-safe.
 */
public final class LocalRedis implements AutoCloseable {

    /** The only address a private server listens on. */
    public static final String HOST = "127.0.0.1";

    private static final long READY_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** Another process may take the free port between our probe and the server's bind: retry then. */
    private static final int PORT_ATTEMPTS = 3;
    private static final String LOG = "redis.log";

    private static volatile Path bundled;

    private final Process process;
    private final int port;
    private final Path directory;
    private final Thread shutdownHook;
    private volatile String version = "unknown";
    private boolean stopped;

    private LocalRedis(Process process, int port, Path directory) {
        this.process = process;
        this.port = port;
        this.directory = directory;
        this.shutdownHook = new Thread(this::stop, "local-redis-stop-" + port);
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /**
     * Starts a server from the bundled binary.
     *
     * @return a server that has answered PING
     * @throws IllegalStateException if it does not start, with the end of its log
     */
    public static LocalRedis start() {
        return start(bundledExecutable(), List.of());
    }

    /**
     * Starts a server from {@code executable} (any {@code redis-server}), with {@code extraArguments}
     * after the defaults ({@code --port}, {@code --bind 127.0.0.1}, {@code --save ""},
     * {@code --appendonly no}, {@code --dir}); a later argument overrides an earlier one, so
     * {@code --dir} and {@code --dbfilename} may give it a data directory of the caller's.
     *
     * @param executable the {@code redis-server} binary
     * @param extraArguments more command-line settings: a cluster node's, a data directory
     * @return a server that has answered PING
     * @throws IllegalStateException if it does not start, with the end of its log
     */
    public static LocalRedis start(Path executable, List<String> extraArguments) {
        return start(executable, extraArguments, (pid, directory) -> { });
    }

    /**
     * As {@link #start(Path, List)}, telling {@code started} of each process as soon as it runs, before
     * it answered PING: a caller that records servers so that a later run can stop them, should this
     * JVM be killed outright, records it then. A process that did not become the server (its port was
     * taken, it never answered) is stopped before the next one is started or the start fails.
     */
    public static LocalRedis start(Path executable, List<String> extraArguments, Started started) {
        return start(executable, extraArguments, started, LocalRedis::freePort);
    }

    /** As {@link #start(Path, List, Started)}, on the ports {@code ports} hands out: tests force a taken one. */
    static LocalRedis start(Path executable, List<String> extraArguments, Started started, IntSupplier ports) {
        Objects.requireNonNull(executable, "executable");
        Objects.requireNonNull(started, "started");
        List<String> extra = List.copyOf(extraArguments);
        return startOnFreePort(executable, null, started, ports, (port, dir) -> {
            List<String> args = new ArrayList<>(List.of("--port", Integer.toString(port), "--bind", HOST,
                    "--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", dir.toString()));
            args.addAll(extra);
            return args;
        });
    }

    /**
     * Starts a Sentinel, from the bundled binary, that knows {@code masterHost:masterPort} as master
     * {@code masterName}. It answers {@code SENTINEL get-master-addr-by-name} whether or not the
     * master is up, as it never decides the master is down within a test.
     *
     * @return a Sentinel that has answered PING
     * @throws IllegalStateException if it does not start, with the end of its log
     */
    public static LocalRedis startSentinel(String masterName, String masterHost, int masterPort) {
        String config = String.join("\n",
                "sentinel monitor " + masterName + " " + masterHost + " " + masterPort + " 1",
                "sentinel down-after-milliseconds " + masterName + " 60000", "");
        return startOnFreePort(bundledExecutable(), config, (pid, directory) -> { }, LocalRedis::freePort,
                (port, dir) -> List.of("--port", Integer.toString(port),
                "--bind", HOST, "--daemonize", "no", "--sentinel", "--dir", dir.toString()));
    }

    /**
     * The {@code redis-server} bundled in embedded-redis for this platform, copied out of its jar
     * once per JVM, and again should that copy be removed.
     *
     * @throws IllegalStateException if there is no binary for this platform, or it cannot be copied
     */
    public static Path bundledExecutable() {
        Path found = bundled;
        if (found == null || !Files.isExecutable(found)) {
            synchronized (LocalRedis.class) {
                // Copied again when the copy is gone: a temporary directory another program cleaned.
                if (bundled == null || !Files.isExecutable(bundled)) {
                    try {
                        bundled = ExecutableProvider.newJarResourceProvider().get().toPath();
                    } catch (IOException | RuntimeException e) {
                        throw new IllegalStateException("no bundled redis-server for this platform: " + e.getMessage(), e);
                    }
                }
                found = bundled;
            }
        }
        return found;
    }

    /** Where a client connects: {@code redis://127.0.0.1:40123}. */
    public String uri() {
        return "redis://" + address();
    }

    /** {@code 127.0.0.1:port}. */
    public String address() {
        return HOST + ":" + port;
    }

    /** Always {@value #HOST}. */
    public String host() {
        return HOST;
    }

    /** The port the server listens on. */
    public int port() {
        return port;
    }

    /** The server process's id, for a caller that signals it (pause, kill) or records it. */
    public long pid() {
        return process.pid();
    }

    /** The server's version, as {@code INFO server} gave it when it answered ({@code redis_version}). */
    public String version() {
        return version;
    }

    /** Whether the server process is still running. */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** The server's working directory (its log and, unless overridden, its files); removed on close. */
    public Path directory() {
        return directory;
    }

    /** Stops the server (SIGTERM, then SIGKILL if it hangs), waits until it is gone, removes its directory. */
    @Override
    public void close() {
        stop();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // the JVM is exiting: the hook is running or has run
        }
    }

    @Override
    public String toString() {
        return "redis-server " + version + " pid " + process.pid() + " on " + address();
    }

    private synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        deleteTree(directory);
    }

    /** Told of a server process as soon as it runs. */
    @FunctionalInterface
    public interface Started {
        /**
         * @param pid the process's id
         * @param directory its working directory, removed when it is stopped
         */
        void started(long pid, Path directory);
    }

    private interface Arguments {
        List<String> of(int port, Path dir);
    }

    private static LocalRedis startOnFreePort(Path executable, String configFile, Started started, IntSupplier ports,
                                              Arguments arguments) {
        IllegalStateException last = null;
        for (int attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
            try {
                return startOnce(executable, configFile, started, arguments, ports.getAsInt());
            } catch (PortTaken e) {
                last = e;
            }
        }
        throw last;
    }

    private static LocalRedis startOnce(Path executable, String configFile, Started started, Arguments arguments,
                                        int port) {
        Path dir;
        Process process;
        try {
            dir = Files.createTempDirectory("local-redis-");
            List<String> command = new ArrayList<>();
            command.add(executable.toString());
            if (configFile != null) {
                // a Sentinel rewrites its configuration file, so it must have one of its own
                Path conf = dir.resolve("redis.conf");
                Files.writeString(conf, configFile);
                command.add(conf.toString());
            }
            command.addAll(arguments.of(port, dir));
            process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(dir.resolve(LOG).toFile()).start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + executable + ": " + e.getMessage(), e);
        }
        LocalRedis server = new LocalRedis(process, port, dir);
        try {
            started.started(process.pid(), dir);
            server.awaitPing(executable);
            return server;
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    private void awaitPing(Path executable) {
        long deadline = System.nanoTime() + READY_NANOS;
        while (true) {
            Optional<Answer> answer = answer();
            if (answer.isPresent()) {
                if (isOurs(answer.get().pid())) {
                    version = answer.get().version();
                    return;
                }
                // Our server lost the bind (or is about to): the one that answered is another process's.
                throw new PortTaken(address() + " answered PING from process " + answer.get().pid()
                        + ", not from " + executable + " (pid " + process.pid() + "): another process took the port");
            }
            boolean exited;
            try {
                // Not a sleep: a server that dies is seen at once, one that is starting is asked again.
                exited = process.waitFor(10, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + executable + " to answer PING", e);
            }
            if (exited) {
                String log = logTail();
                String message = executable + " exited with " + process.exitValue() + " before it answered PING on "
                        + address() + "; its log ends: " + log;
                throw log.contains("Address already in use") ? new PortTaken(message) : new IllegalStateException(message);
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(executable + " did not answer PING on " + address()
                        + " within 10 s; its log ends: " + logTail());
            }
        }
    }

    /**
     * Who answers PING on the port: the pid and version {@code INFO server} gives, or empty while
     * nothing answers PING there (yet).
     */
    private Optional<Answer> answer() {
        try (RespConnection connection = RespConnection.open(HOST, port, false, 200, 1000)) {
            if (!"PONG".equals(connection.command("PING"))) {
                return Optional.empty();
            }
            Object info = connection.command("INFO", "server");
            long pid = RespConnection.infoField(info, "process_id").map(Long::parseLong).orElse(-1L);
            return Optional.of(new Answer(pid, RespConnection.infoField(info, "redis_version").orElse("unknown")));
        } catch (IOException | NumberFormatException notYet) {
            return Optional.empty();
        }
    }

    /** Our process, or one it started (a {@code redis-server} on PATH may be a script that runs the real one). */
    private boolean isOurs(long pid) {
        return process.isAlive()
                && (pid == process.pid() || process.descendants().anyMatch(child -> child.pid() == pid));
    }

    private record Answer(long pid, String version) { }

    private String logTail() {
        try {
            String log = Files.readString(directory.resolve(LOG));
            return log.length() > 800 ? log.substring(log.length() - 800) : log;
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on " + HOST, e);
        }
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // a leftover temporary directory is harmless; the process is stopped
        }
    }

    /** The server could not bind its port, or another process answers there: it took the port after we found it free. */
    private static final class PortTaken extends IllegalStateException {
        PortTaken(String message) {
            super(message);
        }
    }
}
