package dev.idemlab.peers;

import dev.idemlab.idempotency.testsupport.LocalPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The post's experiments on DBOS Transact, its workflow id as the key, on a real embedded PostgreSQL.
 * Each test records what the ledger showed when this was written: DBOS changing its behaviour fails here.
 */
class DbosExperimentsTest {

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

    private static PeerExperiments experiments(ExperimentOptions options) {
        return new PeerExperiments(Peers.dbos(), Peers.postgresUri(postgres.jdbcUrl(), postgres.user(),
                postgres.password()), options);
    }

    @Test
    void aSecondStartWithTheWorkflowIdWhileTheChargeRunsWaitsForItAndGetsTheSameCharge() throws SQLException {
        ExperimentResult result = experiments(ExperimentOptions.defaults().withRetryAt(Duration.ZERO)).inFlight();

        Call a = result.calls().get(0);
        Call b = result.calls().get(1);
        assertThat(b.startMs()).as("B was sent while A was still running").isLessThan(a.endMs());
        assertThat(result.chargeIds()).containsExactly("ch_1");
        assertThat(result.responses()).containsExactly("ch_1", "ch_1");
        assertThat(result.verdict()).isEqualTo(Verdict.ONE_CHARGE_CONSISTENT);
        assertThat(dbosSchemasLeft()).as("the peer dropped its system database's schema").isZero();
    }

    @Test
    void theSameWorkflowIdWithAnotherAmountSilentlyReplaysTheFirstCharge() {
        ExperimentResult result = experiments(ExperimentOptions.defaults()).keyReuse();

        assertThat(result.chargeIds()).containsExactly("ch_1");
        assertThat(result.responses()).containsExactly("ch_1", "ch_1", "ch_1");
        assertThat(result.verdict()).isEqualTo(Verdict.WRONG_ANSWER);
    }

    @Test
    void aRetryAfterTheProviderTimedOutGetsTheStoredFailureAndNeverCharges() {
        ExperimentResult result = experiments(ExperimentOptions.defaults()).providerTimeout();

        assertThat(result.chargeIds()).isEmpty();
        assertThat(result.calls()).allSatisfy(call ->
                assertThat(call.response().signal()).isEqualTo(ErrorSignal.PROVIDER_TIMEOUT));
        assertThat(result.verdict()).isEqualTo(Verdict.WRONG_ANSWER);
    }

    @Test
    void withItsDatabaseStoppedTheCallChargesNothingAndDoesNotAnswer() {
        ExperimentOptions shortDeadline = new ExperimentOptions(ExperimentOptions.DEFAULT_LATENCY,
                ExperimentOptions.DEFAULT_RETRY_AT, 2, Duration.ofSeconds(3));
        ExperimentResult result;
        try (LocalPostgres doomed = LocalPostgres.start()) {
            result = experiments(shortDeadline).storeDown(ServerOutage.of(doomed));
        }

        assertThat(result.chargeIds()).isEmpty();
        assertThat(result.calls().get(0).response().detail()).contains("no answer within 3 s");
        assertThat(result.verdict()).isEqualTo(Verdict.WRONG_ANSWER);
    }

    private static int dbosSchemasLeft() throws SQLException {
        try (Connection connection = postgres.connect();
             ResultSet row = connection.createStatement().executeQuery(
                     "SELECT count(*) FROM information_schema.schemata WHERE schema_name LIKE 'dbos_peer_%'")) {
            row.next();
            return row.getInt(1);
        }
    }
}
