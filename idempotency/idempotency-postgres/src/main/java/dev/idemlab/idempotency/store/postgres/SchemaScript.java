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
 * transaction that first takes a transaction-scoped advisory lock. A table of an earlier version this
 * one knows is upgraded in the same transaction, one version after the other: clients of that version
 * then refuse the table at their next start, and until then their waiters, whose notifications no
 * longer reach them, fall back to their safety poll.
 */
final class SchemaScript {

    static final String RESOURCE = "schema.sql";
    /** Advisory lock key of schema changes: any constant that other users of the database are unlikely to pick. */
    private static final long LOCK_KEY = 0x1de4_5ce4_a000_0001L;

    private SchemaScript() { }

    /** The table comment schema.sql writes; the version a table carries is read from it. */
    static final String VERSION_COMMENT = "idempotency records, schema version 5";

    /**
     * The versions upgraded in place, oldest first, each with what the next version adds to a table of
     * it; a table of one of them gets every later step, in order. Each runs only on a table of an earlier
     * version: {@code ALTER TABLE} takes an exclusive lock even when the column is there, which a busy
     * table should not see at every start. A constant default, or none, makes each a catalog change, no
     * rewrite. A step with no statement adds only what the script creates itself.
     */
    private static final List<Upgrade> UPGRADES = List.of(
            new Upgrade("idempotency records, schema version 2",
                    List.of("ALTER TABLE %s ADD COLUMN IF NOT EXISTS watched boolean NOT NULL DEFAULT false")),
            // Version 3 tables may have no steps table yet (it came within version 3): the script creates it.
            new Upgrade("idempotency records, schema version 3",
                    List.of("ALTER TABLE IF EXISTS %s_steps ADD COLUMN IF NOT EXISTS fingerprint text")),
            // Version 5 adds the remote steps' started markers, a table the script creates, and the comment.
            new Upgrade("idempotency records, schema version 4", List.of()));

    /**
     * A version this one upgrades in place, and the statements (with {@code %s} for the table) that take
     * a table of it to the next version.
     */
    private record Upgrade(String versionComment, List<String> toNextVersion) { }

    /**
     * Creates the table and its functions if they are not there. A table that is there must carry this
     * schema's version or one of {@link #UPGRADES}, which is upgraded: one of another version (or none)
     * is refused, with what to migrate, rather than misread.
     *
     * @throws IllegalStateException if the table exists with another schema version
     */
    static void apply(Connection connection, String table) throws SQLException {
        List<String> statements = statements(table);
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try (Statement statement = connection.createStatement()) {
            statement.execute("SELECT pg_advisory_xact_lock(" + LOCK_KEY + ")");
            for (String upgrade : upgradesOf(existingVersion(connection, table))) {
                statement.execute(String.format(upgrade, table));
            }
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

    /** The upgrade statements a table of {@code version} needs, in order; none for this version or no table. */
    private static List<String> upgradesOf(String version) {
        for (int i = 0; i < UPGRADES.size(); i++) {
            if (UPGRADES.get(i).versionComment().equals(version)) {
                return UPGRADES.subList(i, UPGRADES.size()).stream().flatMap(upgrade -> upgrade.toNextVersion().stream())
                        .toList();
            }
        }
        return List.of();
    }

    private static boolean upgradable(String version) {
        return UPGRADES.stream().anyMatch(upgrade -> upgrade.versionComment().equals(version));
    }

    /**
     * The version comment of the table, or {@code null} when there is no table.
     *
     * @throws IllegalStateException if the table is of neither this version nor one it upgrades
     */
    private static String existingVersion(Connection connection, String table) throws SQLException {
        try (var check = connection.prepareStatement(
                "SELECT to_regclass(?) IS NOT NULL, obj_description(to_regclass(?), 'pg_class')")) {
            check.setString(1, table);
            check.setString(2, table);
            try (var row = check.executeQuery()) {
                row.next();
                String comment = row.getString(2);
                if (!row.getBoolean(1)) {
                    return null;
                }
                if (!VERSION_COMMENT.equals(comment) && !upgradable(comment)) {
                    throw new IllegalStateException("table " + table + " exists with another schema ("
                            + (comment == null ? "no version comment" : "'" + comment + "'") + "); this store needs "
                            + "'" + VERSION_COMMENT + "' and upgrades schema versions 2, 3 and 4 itself. "
                            + "From version 1, migrate to version 2 with: ALTER TABLE " + table
                            + " ADD COLUMN fence bigint; CREATE SEQUENCE " + table + "_fence_seq; COMMENT ON TABLE "
                            + table + " IS '" + UPGRADES.get(0).versionComment() + "'; or point the store at another "
                            + "table");
                }
                return comment;
            }
        }
    }

    /**
     * The script's statements for {@code table}, comments dropped, split at the semicolons that end
     * lines outside a {@code $$}-quoted function body.
     */
    static List<String> statements(String table) {
        List<String> statements = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        boolean inBody = false;
        for (String line : script().split("\n")) {
            String trimmed = line.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("--")) {
                continue;
            }
            current.append(line.replace("${table}", table)).append('\n');
            if (line.split("\\$\\$", -1).length % 2 == 0) {
                inBody = !inBody; // an odd number of $$ on the line opens or closes a body
            }
            if (!inBody && trimmed.endsWith(";")) {
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
