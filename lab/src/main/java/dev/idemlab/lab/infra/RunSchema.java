package dev.idemlab.lab.infra;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Properties;
import java.util.UUID;

/**
 * The schema a lab run works in on a PostgreSQL the user gave by URL, so that the run leaves that
 * server as it found it: created before anything connects, named in every connection's URL
 * ({@code currentSchema}), so the stores' tables, the sample's and the order scenarios' land in it
 * and nowhere else, and dropped with everything in it at the end of the run. A run on a private
 * server needs none: the server is stopped with everything in it.
 *
 * <p>Thread-safe: {@link #drop()} runs once, whether the command's clean-up or the shutdown hook gets
 * there first.
 */
final class RunSchema {

    /** The SQL state of a statement the role has no privilege for. */
    private static final String INSUFFICIENT_PRIVILEGE = "42501";

    private final String givenUrl;
    private final String user;
    private final String password;
    private final String name;
    /** What the drop said; {@code null} until it ran. */
    private String dropped;

    private RunSchema(String givenUrl, String user, String password, String name) {
        this.givenUrl = givenUrl;
        this.user = user;
        this.password = password;
        this.name = name;
    }

    /**
     * Creates a schema of the run's own on the server at {@code url} ({@code address} names it in messages).
     *
     * @throws ProvisioningException when the server does not answer as PostgreSQL, or the role may not
     *     create a schema (saying what to grant)
     */
    static RunSchema create(String url, String user, String password, String address) {
        String name = "idemlab_run_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12)
                .toLowerCase(Locale.ROOT);
        RunSchema schema = new RunSchema(url, user, password, name);
        try (Connection connection = schema.connect(url); Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA " + name);
        } catch (SQLException e) {
            if (INSUFFICIENT_PRIVILEGE.equals(e.getSQLState())) {
                throw new ProvisioningException("the lab works in a schema of its own on a PostgreSQL given by URL, and "
                        + "the role may not create one (" + e.getMessage() + "); let it create schemas in the "
                        + "database (GRANT CREATE ON DATABASE ... TO ...)", e);
            }
            String state = e.getSQLState() == null ? "" : e.getSQLState();
            if (state.startsWith("28") || state.equals("3D000")) { // a role, password or database refused
                throw new ProvisioningException("the postgres given by URL refused the lab at " + target(url, user, address)
                        + ": " + e.getMessage(), e);
            }
            throw new ProvisioningException("postgres given by URL at " + target(url, user, address)
                    + " does not answer: " + e.getMessage(), e);
        }
        return schema;
    }

    /** {@code host:port, database D, role R}: what a connection tried, for its failure's message. */
    private static String target(String url, String user, String address) {
        java.util.Properties parsed = org.postgresql.Driver.parseURL(url, new java.util.Properties());
        String database = parsed == null ? "?" : parsed.getProperty("PGDBNAME", "(the role's name)");
        String role = user != null ? user : parsed == null ? null : parsed.getProperty("user");
        return address + ", database " + database + ", role " + (role != null ? role : "(the operating system's user name)");
    }

    /** The schema's name. */
    String name() {
        return name;
    }

    /** The given URL with the run's schema as every connection's only schema. */
    String url() {
        return givenUrl + (givenUrl.contains("?") ? "&" : "?") + "currentSchema=" + name;
    }

    /**
     * Drops the schema and everything in it, the first time it is called; says, each time, how many
     * tables went with it, or, when the drop failed, which schema is left and how to drop it.
     */
    synchronized String drop() {
        if (dropped == null) {
            dropped = dropNow();
        }
        return dropped;
    }

    private String dropNow() {
        try (Connection connection = connect(givenUrl); Statement statement = connection.createStatement()) {
            int tables = tables(statement);
            statement.execute("DROP SCHEMA IF EXISTS " + name + " CASCADE");
            return "dropped the schema " + name + " this run worked in (" + tables
                    + " tables) from the PostgreSQL given by URL";
        } catch (SQLException e) {
            return "could not drop the schema " + name + " this run worked in (" + e.getMessage()
                    + "); drop it with DROP SCHEMA " + name + " CASCADE";
        }
    }

    private int tables(Statement statement) throws SQLException {
        try (ResultSet row = statement.executeQuery(
                "SELECT count(*) FROM pg_tables WHERE schemaname = '" + name + "'")) {
            row.next();
            return row.getInt(1);
        }
    }

    private Connection connect(String url) throws SQLException {
        Properties credentials = new Properties();
        if (user != null) {
            credentials.setProperty("user", user);
        }
        if (password != null) {
            credentials.setProperty("password", password);
        }
        return DriverManager.getConnection(url, credentials);
    }
}
