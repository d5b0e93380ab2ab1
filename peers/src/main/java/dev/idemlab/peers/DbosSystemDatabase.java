package dev.idemlab.peers;

import dev.dbos.transact.config.DBOSConfig;
import org.postgresql.Driver;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Properties;
import java.util.UUID;

/**
 * Where one DBOS instance keeps its system database: a schema of its own, fresh per instance, on the
 * PostgreSQL the lab names, so that its tables never meet the lab's and the server is left as found:
 * {@link #drop()} removes the schema with everything in it. Immutable and thread-safe.
 *
 * @param jdbcUrl the server's JDBC URL, which may carry {@code user} and {@code password}
 * @param user the user DBOS connects as
 * @param password its password (DBOS requires one, empty when the server asks none)
 * @param schema the schema DBOS creates and works in
 */
public record DbosSystemDatabase(String jdbcUrl, String user, String password, String schema) {

    /**
     * A fresh schema named {@code prefix} and a random suffix on the server at {@code jdbcUrl}.
     *
     * @throws IllegalArgumentException when {@code jdbcUrl} is not a PostgreSQL JDBC URL
     */
    public static DbosSystemDatabase fresh(String jdbcUrl, String prefix) {
        return on(jdbcUrl, prefix + UUID.randomUUID().toString().replace("-", "").substring(0, 12));
    }

    /**
     * The schema {@code schema} on the server at {@code jdbcUrl}: for a second process that must meet
     * the very workflows the first one wrote.
     *
     * @throws IllegalArgumentException when {@code jdbcUrl} is not a PostgreSQL JDBC URL or the schema name
     *     is not lower-case letters, digits and underscores
     */
    public static DbosSystemDatabase on(String jdbcUrl, String schema) {
        Properties parsed = Driver.parseURL(jdbcUrl, new Properties());
        if (parsed == null) {
            throw new IllegalArgumentException("a DBOS system database needs a PostgreSQL JDBC URL, not " + jdbcUrl);
        }
        if (!schema.matches("[a-z_][a-z0-9_]*")) {
            throw new IllegalArgumentException("a schema name is lower-case letters, digits and underscores: " + schema);
        }
        return new DbosSystemDatabase(jdbcUrl, parsed.getProperty("user", "postgres"),
                parsed.getProperty("password", ""), schema.toLowerCase(Locale.ROOT));
    }

    /** DBOS's defaults for application {@code app} on this database, with its admin server off. */
    public DBOSConfig config(String app) {
        return DBOSConfig.defaults(app).withDatabaseUrl(jdbcUrl).withDbUser(user).withDbPassword(password)
                .withDatabaseSchema(schema).withAdminServer(false);
    }

    /** A plain connection to the server, as DBOS's user. The caller closes it. */
    public Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl, user, password);
    }

    /**
     * Drops the schema with everything in it. A server that is gone (the store-down experiment stopped
     * it) has nothing left to drop, so a failure to connect is not an error.
     */
    public void drop() {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute("DROP SCHEMA IF EXISTS \"" + schema + "\" CASCADE");
        } catch (SQLException gone) {
            // the server is unreachable: it took the schema with it, or will when it is removed
        }
    }
}
