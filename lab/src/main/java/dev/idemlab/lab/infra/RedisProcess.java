package dev.idemlab.lab.infra;

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
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A private {@code redis-server} process: bound to 127.0.0.1 on a free ephemeral port, no
 * persistence, its working directory and log in a fresh temporary directory. A JVM shutdown hook
 * stops it and removes that directory too, so that Ctrl-C or SIGTERM never leaves either behind;
 * the {@link ServerRegistry} records its pid, so that a later lab stops it if this JVM is killed
 * outright.
 *
 * <p>Why not embedded-redis's {@code RedisServer}, whose binary the lab does use: it keeps its
 * {@link Process} private, so the lab could not record the server's pid for the registry; it
 * waits for the "Ready to accept connections" log line with no time limit, so a binary that hangs
 * hangs the lab; and it needs its port chosen up front with no way to tell a port taken meanwhile
 * from another failure, which the retry below does. What is left here is those three things.
 *
 * <p>Thread-safe.
 */
final class RedisProcess implements PrivateRedisServer {

    private static final String HOST = "127.0.0.1";
    private static final long READY_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** Another process may take the free port between our probe and the server's bind: retry then. */
    private static final int PORT_ATTEMPTS = 3;

    private final Process process;
    private final int port;
    private final Origin origin;
    private final Path dir;
    private final Thread shutdownHook;
    private final ServerRegistry.Registration registration;
    private boolean stopped;

    private RedisProcess(Process process, int port, Origin origin, Path dir, List<Path> cleanup) {
        this.process = process;
        this.port = port;
        this.origin = origin;
        this.dir = dir;
        this.registration = ServerRegistry.record("redis-server", process.pid(), cleanup);
        this.shutdownHook = new Thread(this::stop, "idemlab-redis-stop-" + port);
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /**
     * Starts {@code executable} and waits until it answers PING.
     *
     * @throws ProvisioningException if it does not start, with the end of its log
     */
    static RedisProcess start(Path executable, Origin origin) {
        return start(executable, origin, List.of());
    }

    /**
     * As {@link #start(Path, Origin)}; {@code alsoRemove} are directories that go with the server if it
     * is left behind (the bundled binary's extraction).
     */
    static RedisProcess start(Path executable, Origin origin, List<Path> alsoRemove) {
        return start(executable, origin, alsoRemove, List.of());
    }

    /** As {@link #start(Path, Origin, List)}, with {@code extraArgs} after the lab's own (a cluster node's). */
    static RedisProcess start(Path executable, Origin origin, List<Path> alsoRemove, List<String> extraArgs) {
        ServerRegistry.reapStale();
        ProvisioningException last = null;
        for (int attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
            try {
                return startOnce(executable, origin, freeLocalPort(), alsoRemove, extraArgs);
            } catch (ProvisioningException e) {
                last = e;
            }
        }
        throw last;
    }

    /** A port on 127.0.0.1 that nothing listens on right now. */
    static int freeLocalPort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free local port", e);
        }
    }

    @Override
    public String uri() {
        return "redis://" + address();
    }

    @Override
    public String address() {
        return HOST + ":" + port;
    }

    @Override
    public java.util.OptionalLong pid() {
        return java.util.OptionalLong.of(process.pid());
    }

    @Override
    public Origin origin() {
        return origin;
    }

    /** The server process's pid, for the faults the lab injects (SIGSTOP, SIGKILL). */
    long processId() {
        return process.pid();
    }

    /** The port it listens on. */
    int port() {
        return port;
    }

    /** Whether the process is still running. */
    boolean isAlive() {
        return process.isAlive();
    }

    /** Sends {@code signal} (STOP, CONT) to the process; {@code false} if it could not be sent. */
    boolean signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return kill.waitFor(5, TimeUnit.SECONDS) && kill.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Kills the process outright (SIGKILL: no shutdown, nothing flushed), then cleans up as close does. */
    void crash() {
        process.destroyForcibly();
        try {
            process.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        close();
    }

    @Override
    public void close() {
        stop();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // The JVM is exiting and the hook is running or has run: nothing to remove.
        }
    }

    /** Stops the process, removes its directory and its record; from close() or the shutdown hook. */
    private synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        stopProcess();
        ServerRegistry.deleteTree(dir);
        registration.close();
    }

    private static RedisProcess startOnce(Path executable, Origin origin, int port, List<Path> alsoRemove,
                                          List<String> extraArgs) {
        Path dir;
        Process process;
        try {
            dir = Files.createTempDirectory("idemlab-redis-");
            List<String> command = new java.util.ArrayList<>(List.of(executable.toString(),
                    "--port", Integer.toString(port), "--bind", HOST,
                    "--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", dir.toString()));
            command.addAll(extraArgs);
            process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("redis.log").toFile())
                    .start();
        } catch (IOException e) {
            throw new ProvisioningException("cannot run " + executable + ": " + e.getMessage(), e);
        }
        List<Path> cleanup = new java.util.ArrayList<>(alsoRemove);
        cleanup.add(0, dir);
        RedisProcess server = new RedisProcess(process, port, origin, dir, cleanup);
        try {
            server.awaitReady(executable);
            return server;
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    private void awaitReady(Path executable) {
        long deadline = System.nanoTime() + READY_TIMEOUT_NANOS;
        while (System.nanoTime() - deadline < 0) {
            if (!process.isAlive()) {
                throw new ProvisioningException(executable + " exited with " + process.exitValue()
                        + " before it answered PING; its log ends: " + logTail(), null);
            }
            if (answersPing()) {
                return;
            }
            pause();
        }
        throw new ProvisioningException(executable + " did not answer PING on " + address()
                + " within 10 s; its log ends: " + logTail(), null);
    }

    private boolean answersPing() {
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
            throw new ProvisioningException("interrupted while waiting for redis-server to start", e);
        }
    }

    /** SIGTERM first, so the server exits cleanly; then, if it hangs, kill it. */
    private void stopProcess() {
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

    private String logTail() {
        try {
            String log = Files.readString(dir.resolve("redis.log"));
            return log.length() > 800 ? log.substring(log.length() - 800) : log;
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }
}
