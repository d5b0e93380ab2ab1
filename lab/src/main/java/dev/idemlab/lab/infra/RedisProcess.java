package dev.idemlab.lab.infra;

import dev.idemlab.idempotency.testsupport.LocalRedis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A private {@code redis-server} process of the lab's: a {@link LocalRedis} (127.0.0.1, an ephemeral
 * port, no persistence, ready once it answered PING), plus what only the lab needs. The
 * {@link ServerRegistry} records its pid, so that a later lab stops it if this JVM is killed
 * outright; a JVM shutdown hook removes that record with the server; and the lab's faults reach it
 * by signal (SIGSTOP, SIGKILL).
 *
 * <p>Thread-safe.
 */
final class RedisProcess implements PrivateRedisServer {

    private static final String HOST = LocalRedis.HOST;

    private final LocalRedis server;
    private final Origin origin;
    private final Thread shutdownHook;
    private final ServerRegistry.Registration registration;
    private boolean stopped;

    private RedisProcess(LocalRedis server, Origin origin, ServerRegistry.Registration registration) {
        this.server = server;
        this.origin = origin;
        this.registration = registration;
        this.shutdownHook = new Thread(this::stop, "idemlab-redis-stop-" + server.port());
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
        return start(executable, origin, alsoRemove, extraArgs, LocalRedis::start);
    }

    /**
     * As {@link #start(Path, Origin, List, List)}, starting the process with {@code launch}: tests make
     * it fail as {@link LocalRedis#start(Path, List, LocalRedis.Started)} can.
     */
    static RedisProcess start(Path executable, Origin origin, List<Path> alsoRemove, List<String> extraArgs,
                              Launch launch) {
        ServerRegistry.reapStale();
        // Recorded as soon as it runs, before it answers: a lab killed outright while it waits leaves a
        // server that the next run stops. A process that did not become the server is stopped by then.
        AtomicReference<ServerRegistry.Registration> registration = new AtomicReference<>(() -> { });
        LocalRedis server;
        try {
            server = launch.start(executable, extraArgs, (pid, directory) -> {
                List<Path> cleanup = new ArrayList<>(alsoRemove);
                cleanup.add(0, directory);
                registration.getAndSet(ServerRegistry.record("redis-server", pid, cleanup)).close();
            });
        } catch (IllegalStateException e) {
            registration.get().close();
            throw new ProvisioningException(e.getMessage(), e);
        } catch (UncheckedIOException e) {
            // No free port to start it on, say: a provisioning failure like any other, not a raw exception.
            registration.get().close();
            throw new ProvisioningException("cannot start " + executable + ": " + e.getMessage()
                    + (e.getCause() != null ? ": " + e.getCause().getMessage() : ""), e);
        }
        try {
            return new RedisProcess(server, origin, registration.get());
        } catch (RuntimeException e) {
            server.close();
            registration.get().close();
            throw e;
        }
    }

    /** How a server process is started: {@link LocalRedis#start(Path, List, LocalRedis.Started)}. */
    @FunctionalInterface
    interface Launch {
        LocalRedis start(Path executable, List<String> extraArgs, LocalRedis.Started started);
    }

    /**
     * A port on 127.0.0.1 that nothing listens on right now.
     *
     * @throws ProvisioningException if there is none
     */
    static int freeLocalPort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new ProvisioningException("no free local port on " + HOST + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String uri() {
        return server.uri();
    }

    @Override
    public String address() {
        return server.address();
    }

    @Override
    public OptionalLong pid() {
        return OptionalLong.of(server.pid());
    }

    @Override
    public Origin origin() {
        return origin;
    }

    /** The server process's pid, for the faults the lab injects (SIGSTOP, SIGKILL). */
    long processId() {
        return server.pid();
    }

    /** The port it listens on. */
    int port() {
        return server.port();
    }

    /** Whether the process is still running. */
    boolean isAlive() {
        return server.isAlive();
    }

    /** Sends {@code signal} (STOP, CONT) to the process; {@code false} if it could not be sent. */
    boolean signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(server.pid()))
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
        ProcessHandle.of(server.pid()).ifPresent(process -> {
            process.destroyForcibly();
            try {
                process.onExit().get(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                // close() below stops it the ordinary way, and waits for that
            }
        });
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

    /** Stops the server (which removes its directory), then its record; from close() or the shutdown hook. */
    private synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        server.close();
        registration.close();
    }
}
