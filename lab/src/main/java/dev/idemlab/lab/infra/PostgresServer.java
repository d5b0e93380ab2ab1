package dev.idemlab.lab.infra;

import java.util.Objects;

/**
 * A PostgreSQL server the lab can connect to, and how to stop it if the lab started it.
 *
 * <p>Immutable and thread-safe; {@link #close()} stops a private server once and does nothing for a
 * server given by URL.
 *
 * @param jdbcUrl where to connect
 * @param user the user, or {@code null} when the URL carries it
 * @param password the password, or {@code null}
 * @param origin where the server came from
 * @param address {@code host:port}, for outputs
 * @param stop stops a private server; a no-op for a server given by URL
 */
public record PostgresServer(String jdbcUrl, String user, String password, Origin origin, String address,
                      AutoCloseable stop) implements AutoCloseable {

    public PostgresServer {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        Objects.requireNonNull(origin, "origin");
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(stop, "stop");
    }

    /** Whether the lab started this server, and so may stop it. */
    boolean isPrivate() {
        return origin != Origin.URL;
    }

    @Override
    public void close() {
        try {
            stop.close();
        } catch (Exception e) {
            throw new ProvisioningException("could not stop the " + origin.description() + " postgres at " + address, e);
        }
    }
}
