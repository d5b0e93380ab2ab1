package dev.idemlab.idempotency.testsupport;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** DESIGN section 5's order for tests: a URL, then the bundled binaries. */
class TestPostgresTest {

    @Test
    void aServerGivenByUrlIsUsedInASchemaOfTheTestsOwnWhichCloseDropsLeavingTheServerRunning() throws Exception {
        try (TestPostgres bundled = TestPostgres.provide(null)) {
            LocalPostgres users = bundled.local().orElseThrow();
            assertThat(bundled.origin()).isEqualTo(ServerOrigin.BUNDLED);
            assertThat(bundled.schema()).isEqualTo("public");
            assertThat(bundled.toString()).contains("bundled binary").contains(users.version());

            TestPostgres given = TestPostgres.provide(users.jdbcUrl() + "?user=" + users.user());
            assertThat(given.origin()).isEqualTo(ServerOrigin.URL);
            assertThat(given.isPrivate()).isFalse();
            assertThat(given.address()).isEqualTo(users.address());
            assertThat(given.version()).isEqualTo(users.version());
            assertThat(given.schema()).startsWith("idemlab_test_");
            assertThat(given.toString()).contains("given by URL").contains(TestPostgres.URL_ENV).contains(given.schema());
            try (Connection connection = given.connect(); Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE idempotency_record (k text)");
                assertThat(single(statement, "SELECT relnamespace::regnamespace::text FROM pg_class"
                        + " WHERE oid = to_regclass('idempotency_record')")).isEqualTo(given.schema());
            }

            given.close();

            try (Connection connection = users.connect(); Statement statement = connection.createStatement()) {
                assertThat(single(statement, "SELECT count(*)::text FROM pg_namespace WHERE nspname = '"
                        + given.schema() + "'")).isEqualTo("0");
            }
            given.close(); // twice is harmless
        }
    }

    @Test
    void withoutUrlTheBundledServerIsStartedAndStoppedOnClose() throws SQLException {
        TestPostgres postgres = TestPostgres.provide(null);
        long pid = postgres.local().orElseThrow().pid();
        try (Connection connection = postgres.connect(); Statement statement = connection.createStatement()) {
            assertThat(single(statement, "SELECT current_schema()")).isEqualTo("public");
        } finally {
            postgres.close();
        }
        assertThat(Exited.exited(pid)).as("postmaster %s exited", pid).isTrue();
    }

    @Test
    void aMalformedUrlIsRefusedNamingTheVariable() {
        assertThatThrownBy(() -> TestPostgres.provide("postgres://nowhere"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining(TestPostgres.URL_ENV)
                .hasMessageContaining("jdbc:postgresql://");
    }

    private static String single(Statement statement, String sql) throws SQLException {
        try (ResultSet row = statement.executeQuery(sql)) {
            row.next();
            return row.getString(1);
        }
    }
}
