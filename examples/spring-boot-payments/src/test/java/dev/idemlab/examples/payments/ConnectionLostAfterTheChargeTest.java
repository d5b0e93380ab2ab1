package dev.idemlab.examples.payments;

import dev.idemlab.idempotency.testsupport.LocalPostgres;
import dev.idemlab.provider.Charge;
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
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The nemesis through the sample on PostgreSQL: the order row's update after the provider charged failed
 * (its connection lost, or none to be had in time), the call answered 500, the advice released the key,
 * and the client's retry charged the card again at a provider that does not deduplicate. Here the
 * server itself ends the connection under that update, once (a trigger terminates its own backend, so
 * the driver sees the connection die as it would when the server or the network goes); the provider
 * does not deduplicate. The charge that happened is the call's answer, the retry replays it, the ledger
 * holds one charge and the order row says so. On a real PostgreSQL (embedded), over real HTTP.
 */
class ConnectionLostAfterTheChargeTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private static LocalPostgres postgres;
    private static FakePaymentProvider provider;
    private static ProviderService providerService;

    @BeforeAll
    static void start() throws Exception {
        postgres = LocalPostgres.start();
        provider = FakePaymentProvider.builder().latency(Duration.ZERO).deduplicateOnKey(false).build();
        providerService = ProviderService.start(provider);
    }

    @AfterAll
    static void stop() throws Exception {
        if (providerService != null) {
            providerService.close();
        }
        if (postgres != null) {
            postgres.close();
        }
    }

    @Test
    void theChargeStandsWhenTheOrderRowsUpdateLosesItsConnectionAndTheRetryReplaysIt() throws Exception {
        String url = database("lost_after_charge");
        try (ConfigurableApplicationContext sample = SpringApplication.run(PaymentsApplication.class,
                "--server.port=0", "--idempotency.store=postgres", "--payments.provider-url=" + providerService.uri(),
                "--spring.datasource.url=" + url, "--spring.datasource.username=" + postgres.user(),
                "--spring.datasource.password=" + postgres.password())) {
            cutTheFirstConnectionThatMarksAnOrderCharged(url);
            URI base = URI.create("http://127.0.0.1:" + sample.getEnvironment().getProperty("local.server.port"));

            HttpResponse<String> first = charge(base, "lost-1");
            HttpResponse<String> retry = charge(base, "lost-1");

            assertThat(updatesMarkingACharge(url)).as("updates that marked an order charged: the first cut off, the "
                    + "second on another connection").isEqualTo(2);
            List<Charge> ledger = provider.ledger();
            assertThat(ledger).as("the provider's ledger (it does not deduplicate)").hasSize(1);
            assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
            assertThat(first.body()).contains(ledger.get(0).id());
            assertThat(retry.statusCode()).as(retry.body()).isEqualTo(201);
            assertThat(retry.body()).contains(ledger.get(0).id());
            assertThat(orderRows(url)).as("the order rows: status and charge").containsExactly("charged " + ledger.get(0).id());
        }
    }

    private static String database(String name) throws SQLException {
        try (Connection connection = postgres.connect(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE " + name);
        }
        return "jdbc:postgresql://" + postgres.address() + "/" + name;
    }

    /**
     * A trigger that ends its own backend the first time an order row is marked charged: a sequence counts
     * the times, since the transaction the termination aborts would take a row's insert with it.
     */
    private static void cutTheFirstConnectionThatMarksAnOrderCharged(String url) throws SQLException {
        try (Connection connection = DriverManager.getConnection(url, postgres.user(), postgres.password());
             Statement statement = connection.createStatement()) {
            statement.execute("CREATE SEQUENCE connections_cut");
            statement.execute("""
                    CREATE FUNCTION cut_the_first_connection() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN
                      IF NEW.status = 'charged' AND nextval('connections_cut') = 1 THEN
                        PERFORM pg_terminate_backend(pg_backend_pid());
                      END IF;
                      RETURN NEW;
                    END $$""");
            statement.execute("CREATE TRIGGER cut_the_first_connection BEFORE UPDATE ON " + OrdersTableShape.TABLE
                    + " FOR EACH ROW EXECUTE FUNCTION cut_the_first_connection()");
        }
    }

    /** How many times an update marked an order row charged; the first one's connection was ended. */
    private static long updatesMarkingACharge(String url) throws SQLException {
        try (Connection connection = DriverManager.getConnection(url, postgres.user(), postgres.password());
             Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT last_value, is_called FROM connections_cut")) {
            row.next();
            return row.getBoolean("is_called") ? row.getLong("last_value") : 0;
        }
    }

    private static List<String> orderRows(String url) throws SQLException {
        try (Connection connection = DriverManager.getConnection(url, postgres.user(), postgres.password());
             Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT status, charge_id FROM " + OrdersTableShape.TABLE + " ORDER BY id")) {
            List<String> found = new java.util.ArrayList<>();
            while (rows.next()) {
                found.add(rows.getString("status") + " " + rows.getString("charge_id"));
            }
            return found;
        }
    }

    private static HttpResponse<String> charge(URI sample, String key) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(sample.resolve("/orders/o-1/charge"))
                .header("Content-Type", "application/json").header("Idempotency-Key", "\"" + key + "\"")
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString("{\"amount\": 500}")).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
