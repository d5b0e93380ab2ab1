package dev.idemlab.examples.payments;

import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.stereotype.Component;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import javax.sql.DataSource;

/**
 * Checks, at startup and after {@code schema.sql} ran, that the orders table the sample found has the
 * columns it writes. {@code CREATE TABLE IF NOT EXISTS} keeps a table of the same name that something
 * else made, and the sample then answered 500 to every charge while its health said UP; now it does
 * not start, and says which table lacks which column. Runs once, in the constructor.
 */
@Component
@DependsOnDatabaseInitialization
public class OrdersTableShape {

    /** The sample's orders table: a name of its own, so another program's {@code orders} is never it. */
    public static final String TABLE = "payments_sample_orders";

    /** The columns {@link OrderCharges} writes and reads. */
    static final List<String> COLUMNS = List.of("id", "order_id", "client", "idempotency_key", "amount", "status",
            "charge_id", "created_at");

    /**
     * @throws OrdersTableMismatchException naming the table and the first column it lacks
     * @throws IllegalStateException when the database cannot be asked
     */
    OrdersTableShape(DataSource dataSource) {
        List<String> found;
        try (Connection connection = dataSource.getConnection()) {
            found = columns(connection);
        } catch (SQLException e) {
            throw new IllegalStateException("could not read the columns of " + TABLE + ": " + e.getMessage(), e);
        }
        for (String column : COLUMNS) {
            if (!found.contains(column)) {
                throw new OrdersTableMismatchException(TABLE, column, found);
            }
        }
    }

    /** The table's columns in the connection's current schema, lower case; empty when there is no such table. */
    private static List<String> columns(Connection connection) throws SQLException {
        DatabaseMetaData metaData = connection.getMetaData();
        List<String> found = new ArrayList<>();
        // PostgreSQL folds unquoted names to lower case, H2 to upper case: ask for the name as each keeps it.
        for (String name : List.of(TABLE, TABLE.toUpperCase(Locale.ROOT))) {
            try (ResultSet rows = metaData.getColumns(connection.getCatalog(), connection.getSchema(), name, null)) {
                while (rows.next()) {
                    found.add(rows.getString("COLUMN_NAME").toLowerCase(Locale.ROOT));
                }
            }
        }
        return found;
    }

    /** The orders table has not the shape the sample writes: a table of that name made by something else. */
    public static final class OrdersTableMismatchException extends IllegalStateException {

        private static final long serialVersionUID = 1L;

        private final String table;
        private final String column;

        OrdersTableMismatchException(String table, String column, List<String> found) {
            super("the table " + table + " has no column " + column + " (it has " + (found.isEmpty() ? "none"
                    : String.join(", ", found)) + "): it was made by something else; drop or rename it, or point "
                    + "spring.datasource.url at another database");
            this.table = table;
            this.column = column;
        }

        /** The table that has another shape. */
        public String table() {
            return table;
        }

        /** The first column the sample writes that the table lacks. */
        public String column() {
            return column;
        }
    }
}
