package dev.idemlab.idempotency.testsupport;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/** A real PostgreSQL: ready when started, on loopback, and gone once closed. */
class LocalPostgresTest {

    @Test
    void aStartedServerAnswersOnLoopbackAndRefusesConnectionsOnceClosed() throws Exception {
        LocalPostgres postgres = LocalPostgres.start();
        long pid = postgres.pid();
        try {
            assertThat(postgres.version()).matches("\\d+(\\.\\d+)*.*");
            assertThat(postgres.toString()).contains(postgres.version()).contains(postgres.address());
            assertThat(postgres.jdbcUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:" + postgres.port() + "/postgres");
            try (Connection connection = postgres.connect(); Statement statement = connection.createStatement();
                 ResultSet row = statement.executeQuery("SELECT current_user, inet_server_addr()::text, "
                         + "current_setting('server_version_num')::int")) {
                row.next();
                assertThat(row.getString(1)).isEqualTo("postgres");
                assertThat(row.getString(2)).startsWith("127.0.0.1");
                assertThat(row.getInt(3)).isGreaterThanOrEqualTo(100000);
            }
            assertThat(dataDirectory(postgres)).isEqualTo(postgres.dataDirectory().toRealPath().toString());
        } finally {
            postgres.close();
        }
        assertThat(Exited.exited(pid)).as("postmaster %s exited", pid).isTrue();
        assertThat(postgres.dataDirectory()).doesNotExist();
        assertNotServedBy(postgres);
        postgres.close(); // twice is harmless
    }

    /**
     * Nothing on the closed server's port is that server: nothing answers, or what answers (another
     * server that took the freed port meanwhile) has another data directory.
     */
    private static void assertNotServedBy(LocalPostgres closed) {
        String answering;
        try {
            answering = dataDirectory(closed);
        } catch (SQLException nothingAnswers) {
            return;
        }
        assertThat(answering).isNotEqualTo(closed.dataDirectory().toString());
    }

    private static String dataDirectory(LocalPostgres postgres) throws SQLException {
        try (Connection connection = postgres.connect(); Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SHOW data_directory")) {
            row.next();
            return row.getString(1);
        }
    }
}
