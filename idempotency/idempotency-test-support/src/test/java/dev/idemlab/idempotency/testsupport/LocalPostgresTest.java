package dev.idemlab.idempotency.testsupport;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A real PostgreSQL: ready when started, on loopback, and gone once closed. */
class LocalPostgresTest {

    @Test
    void aStartedServerAnswersOnLoopbackAndRefusesConnectionsOnceClosed() throws Exception {
        LocalPostgres postgres = LocalPostgres.start();
        try {
            assertThat(postgres.jdbcUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:" + postgres.port() + "/postgres");
            try (Connection connection = postgres.connect(); Statement statement = connection.createStatement();
                 ResultSet row = statement.executeQuery("SELECT current_user, inet_server_addr()::text, "
                         + "current_setting('server_version_num')::int")) {
                row.next();
                assertThat(row.getString(1)).isEqualTo("postgres");
                assertThat(row.getString(2)).startsWith("127.0.0.1");
                assertThat(row.getInt(3)).isGreaterThanOrEqualTo(100000);
            }
        } finally {
            postgres.close();
        }
        assertThatThrownBy(postgres::connect).isInstanceOf(SQLException.class);
        postgres.close(); // twice is harmless
    }
}
