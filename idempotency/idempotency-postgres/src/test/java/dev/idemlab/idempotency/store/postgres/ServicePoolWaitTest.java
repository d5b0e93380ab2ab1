package dev.idemlab.idempotency.store.postgres;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A store over a service's HikariCP pool says, when it opens, if that pool makes a caller wait longer for
 * a connection than the store's own pools would: on HikariCP's default of 30 s, the nemesis through the
 * Spring Boot sample on PostgreSQL saw requests queue 28 s for a connection, past their clients' timeouts.
 * The pools here are never started (HikariCP connects on the first borrow), so no server is needed.
 */
class ServicePoolWaitTest {

    private static final Duration STORE_WAIT = PostgresStoreConfig.DEFAULT_POOL_TIMEOUT;

    @Test
    void aPoolOnHikarisDefaultWaitIsNamedWithTheSettingThatShortensIt() {
        try (HikariDataSource service = pool("service", new HikariDataSource().getConnectionTimeout())) {
            assertThat(ConnectionPool.connectionWaitBeyond(service, STORE_WAIT)).hasValueSatisfying(advice -> assertThat(advice)
                    .contains("the service's pool service waits up to 30000 ms for a connection, the store's own pools 1000 ms")
                    .contains("give it a connectionTimeout of 1000 ms or less")
                    .contains("spring.datasource.hikari.connection-timeout"));
        }
    }

    @Test
    void aPoolThatWaitsNoLongerThanTheStoresOwnIsLeftAlone() {
        try (HikariDataSource service = pool("service", STORE_WAIT.toMillis())) {
            assertThat(ConnectionPool.connectionWaitBeyond(service, STORE_WAIT)).isEmpty();
        }
    }

    @Test
    void aPoolThatWaitsWithoutEndIsNamedAsSuch() {
        try (HikariDataSource service = pool("service", 0)) {
            assertThat(ConnectionPool.connectionWaitBeyond(service, STORE_WAIT)).hasValueSatisfying(advice -> assertThat(advice)
                    .contains("waits without end for a connection"));
        }
    }

    /** A pool that is configured but never started. */
    private static HikariDataSource pool(String name, long connectionTimeoutMillis) {
        HikariDataSource pool = new HikariDataSource();
        pool.setPoolName(name);
        pool.setJdbcUrl("jdbc:postgresql://127.0.0.1:9/none");
        pool.setConnectionTimeout(connectionTimeoutMillis);
        return pool;
    }
}
