package dev.idemlab.peers.internal;

import dev.idemlab.peers.RedisOutage;
import redis.embedded.core.ExecutableProvider;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A private {@code redis-server} process, from the binary bundled with embedded-redis: a Redis on
 * 127.0.0.1 on a free ephemeral port with no persistence, or a Sentinel that monitors one. It is
 * stopped by {@link #stop()}, and by a JVM shutdown hook if nobody stopped it.
 *
 * <p>Thread-safe.
 */
public final class LocalRedis implements RedisOutage, AutoCloseable {

    private static final String HOST = "127.0.0.1";
    private static final long READY_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static volatile Path binary;

    private final Process process;
    private final int port;
    private final Path dir;
    private final Thread hook;
    private boolean stopped;

    private LocalRedis(Process process, int port, Path dir) {
        this.process = process;
        this.port = port;
        this.dir = dir;
        this.hook = new Thread(this::destroy, "peers-redis-stop-" + port);
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** Starts a Redis server and waits until it answers PING. */
    public static LocalRedis startServer() {
        return start(port -> List.of("--port", Integer.toString(port), "--bind", HOST, "--save", "",
                "--appendonly", "no", "--daemonize", "no"), null);
    }

    /**
     * Starts a Sentinel that knows {@code masterHost:masterPort} as master {@code masterName}; it
     * answers {@code SENTINEL get-master-addr-by-name} whether or not the master is up.
     */
    public static LocalRedis startSentinel(String masterName, String masterHost, int masterPort) {
        String config = String.join("\n",
                "sentinel monitor " + masterName + " " + masterHost + " " + masterPort + " 1",
                "sentinel down-after-milliseconds " + masterName + " 60000", "");
        return start(port -> List.of("--port", Integer.toString(port), "--bind", HOST, "--daemonize", "no",
                "--sentinel"), config);
    }

    /** A local port nothing listens on right now. */
    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free local port", e);
        }
    }

    @Override
    public String uri() {
        return "redis://" + HOST + ":" + port;
    }

    public String host() {
        return HOST;
    }

    public int port() {
        return port;
    }

    @Override
    public synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        destroy();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or has run
        }
        deleteQuietly(dir);
    }

    @Override
    public void close() {
        stop();
    }

    private interface Arguments {
        List<String> forPort(int port);
    }

    private static LocalRedis start(Arguments arguments, String sentinelConfig) {
        IllegalStateException last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                return startOnce(arguments, sentinelConfig, freePort());
            } catch (IllegalStateException portTaken) {
                last = portTaken;
            }
        }
        throw last;
    }

    private static LocalRedis startOnce(Arguments arguments, String sentinelConfig, int port) {
        Path dir;
        Process process;
        try {
            dir = Files.createTempDirectory("peers-redis-");
            List<String> command = new ArrayList<>();
            command.add(binary().toString());
            if (sentinelConfig != null) {
                // a Sentinel rewrites its configuration file, so it must have one of its own
                Path conf = dir.resolve("sentinel.conf");
                Files.writeString(conf, sentinelConfig);
                command.add(conf.toString());
            }
            command.addAll(arguments.forPort(port));
            command.add("--dir");
            command.add(dir.toString());
            process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("redis.log").toFile()).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start redis-server", e);
        }
        LocalRedis redis = new LocalRedis(process, port, dir);
        long deadline = System.nanoTime() + READY_NANOS;
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                redis.stop();
                throw new IllegalStateException("redis-server exited before it answered PING on port " + port);
            }
            if (answersPing(port)) {
                return redis;
            }
            pause();
        }
        redis.stop();
        throw new IllegalStateException("redis-server did not answer PING on port " + port + " within 10 s");
    }

    private static Path binary() throws IOException {
        Path found = binary;
        if (found == null) {
            synchronized (LocalRedis.class) {
                if (binary == null) {
                    binary = ExecutableProvider.newJarResourceProvider().get().toPath();
                }
                found = binary;
            }
        }
        return found;
    }

    private static boolean answersPing(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(HOST, port), 200);
            socket.setSoTimeout(500);
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            byte[] reply = new byte[7];
            InputStream in = socket.getInputStream();
            int read = in.readNBytes(reply, 0, reply.length);
            return new String(reply, 0, read, StandardCharsets.US_ASCII).equals("+PONG\r\n");
        } catch (IOException notYet) {
            return false;
        }
    }

    private static void pause() {
        try {
            Thread.sleep(10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for redis-server", e);
        }
    }

    private void destroy() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private static void deleteQuietly(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // a leftover temporary directory is harmless; the process is stopped
        }
    }
}
