package dev.idemlab.examples.payments;

import com.zaxxer.hikari.HikariDataSource;
import dev.idemlab.idempotency.store.postgres.PostgresStoreConfig;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

import javax.sql.DataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The nemesis through the sample on PostgreSQL: with the pool's default wait of 30 s, requests queued for a
 * connection longer than their clients waited, and the clients timed out. The sample's pool waits no longer
 * than the store's own pool would, so that a request beyond what the pool carries is refused at once.
 */
class PoolWaitTest {

    @Test
    void theSamplesPoolWaitsNoLongerForAConnectionThanTheStoresOwnPool() {
        try (ConfigurableApplicationContext sample = SpringApplication.run(PaymentsApplication.class,
                "--server.port=0", "--idempotency.store=memory", "--payments.provider-url=http://127.0.0.1:9",
                "--spring.datasource.url=jdbc:h2:mem:" + System.nanoTime())) {
            DataSource dataSource = sample.getBean(DataSource.class);
            assertThat(dataSource).isInstanceOf(HikariDataSource.class);
            assertThat(((HikariDataSource) dataSource).getConnectionTimeout())
                    .as("how long a request waits for a pooled connection, in ms")
                    .isLessThanOrEqualTo(PostgresStoreConfig.DEFAULT_POOL_TIMEOUT.toMillis());
        }
    }
}
