package dev.idemlab.lab.peers;

import dev.idemlab.idempotency.testsupport.LocalPostgres;
import dev.idemlab.lab.scenario.StoreEndpoint;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The crashed worker on DBOS Transact, for real: the order workflow's worker in a child JVM, SIGKILLed
 * once the provider answered its charge and before DBOS recorded the step, then recovered by a second
 * executor's launch. Read back from the provider's ledger, the orders table and DBOS. Each test records
 * what the ledger showed when this was written.
 */
class DbosCrashedWorkerTest {

    private static LocalPostgres postgres;

    @BeforeAll
    static void start() {
        postgres = LocalPostgres.start();
    }

    @AfterAll
    static void stop() {
        if (postgres != null) {
            postgres.close();
        }
    }

    private static DbosCrashedWorker worker() {
        return new DbosCrashedWorker(new StoreEndpoint("postgres", postgres.jdbcUrl(), postgres.user(),
                postgres.password()));
    }

    @Test
    void recoveryRerunsTheChargeStepAKilledWorkerLeftUnrecordedAndOnlyTheDownstreamKeyKeepsItToOneCharge()
            throws Exception {
        DbosCrashedWorker.Cell bare = worker().run("charge_created", false, DbosCrashedWorker.Fault.CRASH);
        DbosCrashedWorker.Cell keyed = worker().run("charge_created", true, DbosCrashedWorker.Fault.CRASH);

        assertThat(bare.charges()).as("the step ran again on recovery, with nothing for the provider to "
                + "deduplicate on").containsExactly("ch_1", "ch_2");
        assertThat(bare.orders()).as("the transactional step was not run again").isEqualTo(1);
        assertThat(bare.paidWith()).containsExactly("ch_2");
        assertThat(bare.answer()).contains("ch_2");
        assertThat(bare.status()).isEqualTo("SUCCESS");

        assertThat(keyed.charges()).containsExactly("ch_1");
        assertThat(keyed.once()).isTrue();
        assertThat(keyed.answer()).contains("ch_1");
        assertThat(schemasLeft()).as("every run dropped its DBOS schema").isZero();
    }

    private static int schemasLeft() throws SQLException {
        try (Connection connection = postgres.connect();
             ResultSet row = connection.createStatement().executeQuery(
                     "SELECT count(*) FROM information_schema.schemata WHERE schema_name LIKE 'dbos_orders_%'")) {
            row.next();
            return row.getInt(1);
        }
    }
}
