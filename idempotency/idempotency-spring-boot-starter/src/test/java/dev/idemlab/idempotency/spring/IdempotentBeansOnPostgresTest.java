package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.testsupport.LocalPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import javax.sql.DataSource;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code @Idempotent} beans on a real PostgreSQL, through the application's own {@code DataSource}. */
@SpringBootTest(classes = PaymentsApplication.class, webEnvironment = SpringBootTest.WebEnvironment.NONE,
        properties = {"idempotency.store=postgres", "spring.datasource.username=postgres",
                "spring.datasource.password=postgres"})
@DirtiesContext
class IdempotentBeansOnPostgresTest extends IdempotentBeansContract {

    private static LocalPostgres postgres;

    @Autowired
    DataSource dataSource;

    @DynamicPropertySource
    static void datasource(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", IdempotentBeansOnPostgresTest::startedUrl);
    }

    private static synchronized String startedUrl() {
        if (postgres == null) {
            postgres = LocalPostgres.start();
        }
        return postgres.jdbcUrl();
    }

    @AfterAll
    static void stopPostgres() {
        if (postgres != null) {
            postgres.close();
        }
    }

    @Override
    String expectedStore() {
        return "postgres";
    }

    @Test
    void theStoreRunsOnTheApplicationsDataSource() throws Exception {
        try (var connection = dataSource.getConnection();
             var tables = connection.getMetaData().getTables(null, null, "idempotency_record", null)) {
            assertThat(tables.next()).isTrue();
        }
    }
}
