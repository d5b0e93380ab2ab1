package dev.idemlab.idempotency.store.postgres;

import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Issue 40, defect 6: a wrong role or database was reported as {@code open at unknown failed} when the
 * store ran on a service's own {@code DataSource}, so services' logs did not say where the store had
 * tried to connect. Every connection failure now names the host, port, database and role it tried,
 * on a URL's pool and on a service's data source alike. A real server refuses the role and the database.
 */
class ConnectionFailuresNameTheirTargetTest {

    private static TestPostgres server;

    @BeforeAll
    static void startServer() {
        server = TestPostgres.provide();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    private static String refusal(Runnable open) {
        Throwable thrown = catchThrowable(open::run);
        assertThat(thrown).isInstanceOf(IdempotencyStoreException.class);
        return thrown.getMessage();
    }

    private static String urlOf(String database) {
        return "jdbc:postgresql://" + server.address() + "/" + database;
    }

    @Test
    void aServicesDataSourceWithAWrongRoleNamesHostPortDatabaseAndRole() {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(urlOf("postgres"));
        dataSource.setUser("no_such_role");
        String message = refusal(() -> PostgresIdempotencyStore.open(dataSource,
                PostgresStoreConfig.forDataSource().build()).close());
        assertThat(message).doesNotContain("unknown")
                .contains("at " + server.address() + ", database postgres, role no_such_role failed");
    }

    @Test
    void aServicesDataSourceWithAWrongDatabaseNamesIt() {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(urlOf("no_such_database"));
        dataSource.setUser(server.user());
        dataSource.setPassword(server.password());
        String message = refusal(() -> PostgresIdempotencyStore.open(dataSource,
                PostgresStoreConfig.forDataSource().build()).close());
        assertThat(message).contains("at " + server.address() + ", database no_such_database, role " + server.user());
    }

    @Test
    void aUrlsPoolWithAWrongRoleNamesItToo() {
        String message = refusal(() -> new PostgresIdempotencyStore(PostgresStoreConfig.custom(urlOf("postgres"))
                .credentials("no_such_role", "x").build()).close());
        assertThat(message).contains("at " + server.address() + ", database postgres, role no_such_role failed");
    }
}
