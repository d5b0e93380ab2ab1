package dev.idemlab.lab.infra;

/**
 * A Redis server the lab started for itself: a process on 127.0.0.1 or a container. Closing it
 * stops the server; closing twice is harmless.
 *
 * <p>Implementations are thread-safe.
 */
public interface PrivateRedisServer extends AutoCloseable {

    /** Where a client connects: {@code redis://127.0.0.1:40123}. */
    String uri();

    /** {@code host:port}, for outputs. */
    String address();

    /** Where the server came from. */
    Origin origin();

    /** The server's process id, where it is a process of this machine the lab started; else empty. */
    default java.util.OptionalLong pid() {
        return java.util.OptionalLong.empty();
    }

    /**
     * Starts a {@code redis-server} of the lab's own (on PATH, else the bundled binary) whose RDB
     * snapshot lives in {@code dir}, which outlives it: the server loads {@code dir}/dump.rdb when it
     * starts, writes it on SAVE or BGSAVE and never by itself (nor on shutdown). So a server started
     * again on the same directory comes back with the data of the last snapshot taken, as a server
     * restored from an older snapshot does. The caller closes it, and removes {@code dir}.
     *
     * @throws ProvisioningException if there is no local binary, or it does not start
     */
    static PrivateRedisServer startWithDataIn(java.nio.file.Path dir) {
        return RedisProvisioner.startWithDataIn(dir);
    }

    /** Stops the server and waits until it is gone. */
    @Override
    void close();
}
