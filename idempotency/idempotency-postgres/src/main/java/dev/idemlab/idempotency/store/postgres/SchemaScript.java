package dev.idemlab.idempotency.store.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Applies {@code schema.sql} to a table name. Stateless and thread-safe.
 *
 * <p>{@code CREATE TABLE IF NOT EXISTS} is not safe against itself: two clients creating the same
 * table at once can both pass the check and one then fails on the catalog. So the script runs in one
 * transaction that first takes a transaction-scoped advisory lock.
 */
final class SchemaScript {

    static final String RESOURCE = "schema.sql";
    /** Advisory lock key of schema changes: any constant that other users of the database are unlikely to pick. */
    private static final long LOCK_KEY = 0x1de4_5ce4_a000_0001L;

    private SchemaScript() { }

    /** The table comment schema.sql writes; the version a table carries is read from it. */
    static final String VERSION_COMMENT = "idempotency records, schema version 2";

    /**
     * Creates the table if it is not there. A table that is there must carry this schema's version:
     * one of another version (or none) is refused, with what to migrate, rather than misread.
     *
     * @throws IllegalStateException if the table exists with another schema version
     */
    static void apply(Connection connection, String table) throws SQLException {
        List<String> statements = statements(table);
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try (Statement statement = connection.createStatement()) {
            statement.execute("SELECT pg_advisory_xact_lock(" + LOCK_KEY + ")");
            requireThisVersionOrNone(connection, table);
            for (String sql : statements) {
                statement.execute(sql);
            }
            connection.commit();
        } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(autoCommit);
        }
    }

    private static void requireThisVersionOrNone(Connection connection, String table) throws SQLException {
        try (var check = connection.prepareStatement(
                "SELECT to_regclass(?) IS NOT NULL, obj_description(to_regclass(?), 'pg_class')")) {
            check.setString(1, table);
            check.setString(2, table);
            try (var row = check.executeQuery()) {
                row.next();
                String comment = row.getString(2);
                if (row.getBoolean(1) && !VERSION_COMMENT.equals(comment)) {
                    throw new IllegalStateException("table " + table + " exists with another schema ("
                            + (comment == null ? "no version comment" : "'" + comment + "'") + "); this store needs "
                            + "'" + VERSION_COMMENT + "'. From version 1, migrate with: ALTER TABLE " + table
                            + " ADD COLUMN fence bigint; CREATE SEQUENCE " + table + "_fence_seq; COMMENT ON TABLE "
                            + table + " IS '" + VERSION_COMMENT + "'; or point the store at another table");
                }
            }
        }
    }

    /** The script's statements for {@code table}, comments dropped, split at the semicolons that end lines. */
    static List<String> statements(String table) {
        List<String> statements = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : script().split("\n")) {
            String trimmed = line.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("--")) {
                continue;
            }
            current.append(line.replace("${table}", table)).append('\n');
            if (trimmed.endsWith(";")) {
                statements.add(current.toString().strip().replaceAll(";$", ""));
                current.setLength(0);
            }
        }
        return statements;
    }

    private static String script() {
        try (InputStream in = SchemaScript.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing beside " + SchemaScript.class.getName());
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
