package dev.idemlab.lab.infra;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A local {@code redis-server} of the lab's own whose RDB snapshot lives in a directory that outlives
 * each server process: it is written only when a client asks (SAVE, BGSAVE), and {@link #restartFromSnapshot()}
 * kills the process and starts another on the same directory, which comes back with the data of the
 * last snapshot and without every write since, as a server restored from a backup does. Closing it
 * stops the current process and removes the directory; a JVM shutdown hook removes the directory too.
 *
 * <p>Thread-safe.
 */
public final class SnapshotRedisServer implements AutoCloseable {

    private final Path dir;
    private final Thread removeDir;
    private volatile RedisProcess current;
    private boolean closed;

    private SnapshotRedisServer(Path dir, RedisProcess first) {
        this.dir = dir;
        this.current = first;
        this.removeDir = new Thread(() -> ServerRegistry.deleteTree(dir), "idemlab-snapshot-dir");
        Runtime.getRuntime().addShutdownHook(removeDir);
    }

    /**
     * Starts the first server, on a fresh directory.
     *
     * @throws IOException when the directory cannot be made
     * @throws ProvisioningException if there is no local binary, or it does not start
     */
    public static SnapshotRedisServer start() throws IOException {
        Path dir = Files.createTempDirectory("idemlab-snapshot-");
        try {
            return new SnapshotRedisServer(dir, RedisProvisioner.startWithDataIn(dir));
        } catch (RuntimeException e) {
            ServerRegistry.deleteTree(dir);
            throw e;
        }
    }

    /** The server running now: another one after each restart, on another port. */
    public PrivateRedisServer current() {
        return current;
    }

    /**
     * Kills the server outright (SIGKILL: it saves nothing on its way out, and would not anyway) and
     * starts a new one on the same directory, which loads the last snapshot.
     *
     * @return the new server
     * @throws ProvisioningException if the new server does not start; then none runs
     * @throws IllegalStateException once closed
     */
    public synchronized PrivateRedisServer restartFromSnapshot() {
        if (closed) {
            throw new IllegalStateException("the server on " + dir + " is closed");
        }
        current.crash();
        current = RedisProvisioner.startWithDataIn(dir);
        return current;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        current.close();
        ServerRegistry.deleteTree(dir);
        try {
            Runtime.getRuntime().removeShutdownHook(removeDir);
        } catch (IllegalStateException shuttingDown) {
            // the JVM is exiting and runs the hook itself
        }
    }
}
