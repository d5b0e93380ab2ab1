package dev.idemlab.examples.payments;

import dev.idemlab.examples.payments.OrdersTableShape.OrdersTableMismatchException;
import dev.idemlab.idempotency.testsupport.LocalPostgres;
import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.http.ProviderService;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Issue 40, defect 2: the README's snippet creates a table {@code orders (sku, quantity)}; the sample,
 * pointed at the same database, kept that table and answered 500 to every charge ({@code column
 * "order_id" does not exist}) while its startup and health looked fine. Now the sample's tables have
 * names of their own, so the README's table is no concern of its, and a table of the sample's own name
 * with another shape stops it at startup with a message naming the table and the column. On a real
 * PostgreSQL (embedded), each test in a database of its own.
 */
class OrdersTableOfAnotherShapeTest {

    private static LocalPostgres postgres;
    private static ProviderService provider;

    @BeforeAll
    static void start() throws Exception {
        postgres = LocalPostgres.start();
        provider = ProviderService.start(FakePaymentProvider.builder().latency(Duration.ZERO).build());
    }

    @AfterAll
    static void stop() throws Exception {
        provider.close();
        postgres.close();
    }

    /** A fresh database holding {@code ddl}; its JDBC URL. */
    private static String databaseWith(String name, String ddl) throws SQLException {
        try (Connection connection = postgres.connect(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE " + name);
        }
        String url = "jdbc:postgresql://" + postgres.address() + "/" + name;
        try (Connection connection = java.sql.DriverManager.getConnection(url, postgres.user(), postgres.password());
             Statement statement = connection.createStatement()) {
            statement.execute(ddl);
        }
        return url;
    }

    private static ConfigurableApplicationContext startSample(String url) {
        return SpringApplication.run(PaymentsApplication.class, "--server.port=0", "--idempotency.store=memory",
                "--payments.provider-url=" + provider.uri(), "--spring.datasource.url=" + url,
                "--spring.datasource.username=" + postgres.user(), "--spring.datasource.password=" + postgres.password());
    }

    @Test
    void aTableOfTheSamplesNameWithOtherColumnsStopsItAtStartupNamingTableAndColumn() throws Exception {
        String url = databaseWith("shape_conflict", "CREATE TABLE payments_sample_orders (sku text, quantity int)");
        Throwable thrown = catchThrowable(() -> startSample(url).close());
        assertThat(thrown).hasRootCauseInstanceOf(OrdersTableMismatchException.class)
                .rootCause().hasMessageContaining("the table payments_sample_orders has no column id (it has sku, quantity)");
    }

    @Test
    void theReadmesOrdersTableBesideTheSampleLeavesItsChargesWorking() throws Exception {
        String url = databaseWith("readme_orders", "CREATE TABLE orders (sku text, quantity int)");
        try (ConfigurableApplicationContext sample = startSample(url)) {
            URI base = URI.create("http://127.0.0.1:" + sample.getEnvironment().getProperty("local.server.port"));
            HttpResponse<String> charged = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                            base.resolve("/orders/o-1/charge")).header("Content-Type", "application/json")
                    .header("Idempotency-Key", "\"k-1\"").timeout(Duration.ofSeconds(30))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"amount\": 500}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(charged.statusCode()).as(charged.body()).isEqualTo(201);
        }
    }
}
