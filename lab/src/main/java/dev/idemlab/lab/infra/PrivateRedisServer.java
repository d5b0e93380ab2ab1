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

    /** Stops the server and waits until it is gone. */
    @Override
    void close();
}
