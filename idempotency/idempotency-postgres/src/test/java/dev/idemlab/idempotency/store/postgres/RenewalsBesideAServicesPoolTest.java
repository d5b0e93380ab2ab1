package dev.idemlab.idempotency.store.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A store over a service's own HikariCP pool renews leases on a pool of its own, a copy of the
 * service's: a busy service that holds every connection of its pool does not make a live holder's
 * renewal wait for one past its lease. Found through the Spring Boot sample under the nemesis: on its
 * one pool of 10, hundreds of waiting requests delayed renewals by up to 8 s, the leases of live
 * holders ran out, and retries charged again.
 */
class RenewalsBesideAServicesPoolTest {

    private static final String FP = "a".repeat(64);
    private static final Duration LEASE = Duration.ofSeconds(30);

    private static TestPostgres server;

    @BeforeAll
    static void startServer() {
        server = TestPostgres.provide();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aRenewalGetsThroughWhileTheServiceHoldsEveryConnectionOfItsPool() throws Exception {
        try (HikariDataSource service = servicePool();
             PostgresIdempotencyStore store = storeOn(service, PostgresStoreConfig.DEFAULT_RENEWAL_POOL_SIZE)) {
            String namespace = reserved(store);
            try (Connection first = service.getConnection(); Connection second = service.getConnection()) {
                assertThat(store.renew(namespace, "t1", LEASE)).isTrue();
            }
        }
    }

    /** The same with renewals on the service's pool, as every store over a DataSource renewed before: it waits, then fails. */
    @Test
    void renewingOnTheServicesPoolWaitsBehindItsWorkAndFails() throws Exception {
        try (HikariDataSource service = servicePool(); PostgresIdempotencyStore store = storeOn(service, 0)) {
            String namespace = reserved(store);
            try (Connection first = service.getConnection(); Connection second = service.getConnection()) {
                assertThatThrownBy(() -> store.renew(namespace, "t1", LEASE)).isInstanceOf(IdempotencyStoreException.class);
            }
        }
    }

    @Test
    void theStoreClosesItsRenewalsPoolAndLeavesTheServicesOpen() throws Exception {
        try (HikariDataSource service = servicePool()) {
            PostgresIdempotencyStore store = storeOn(service, 2);
            String namespace = reserved(store);
            assertThat(store.renew(namespace, "t1", LEASE)).isTrue();
            store.close();
            assertThat(service.isClosed()).isFalse();
            try (Connection connection = service.getConnection()) {
                assertThat(connection.isValid(1)).isTrue();
            }
        }
    }

    @Test
    void aStoreOnItsOwnPoolsStillNeedsOneRenewalConnectionAtLeast() {
        assertThatThrownBy(() -> PostgresStoreConfig.custom(server.jdbcUrl()).renewalPoolSize(0).build())
                .hasMessageContaining("renewalPoolSize").hasMessageContaining("must be at least 1");
        assertThat(PostgresStoreConfig.forDataSource().renewalPoolSize(0).build().renewalPoolSize()).isZero();
    }

    /** The service's pool: two connections, and a wait for one of half a second. */
    private static HikariDataSource servicePool() {
        HikariConfig config = new HikariConfig();
        config.setPoolName("service");
        config.setJdbcUrl(server.jdbcUrl());
        config.setUsername(server.user());
        config.setPassword(server.password());
        config.setMaximumPoolSize(2);
        config.setConnectionTimeout(500);
        return new HikariDataSource(config);
    }

    private static PostgresIdempotencyStore storeOn(HikariDataSource service, int renewalPoolSize) {
        return PostgresIdempotencyStore.open(service, PostgresStoreConfig.forDataSource()
                .namespacePrefix("test-" + UUID.randomUUID() + ":").renewalPoolSize(renewalPoolSize).build());
    }

    private static String reserved(PostgresIdempotencyStore store) {
        String namespace = "payment.charge:" + UUID.randomUUID();
        assertThat(store.reserve(namespace, "t1", FP, LEASE)).isInstanceOf(Reservation.Acquired.class);
        return namespace;
    }
}
