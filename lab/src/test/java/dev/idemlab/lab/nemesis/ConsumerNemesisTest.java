package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.testsupport.TestKafka;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.infra.StoreBackends;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The nemesis on consumers on a real broker and a real Redis: a short seeded run with its faults (members
 * in child JVMs killed and stopped, rebalances, the broker restarted, the store's faults) ends with no
 * violation, read from the ledger and the broker's offsets; and the checker flags each consumer broken on
 * purpose (commits before handling; the handler without the adapter), so it is shown able to fail. The runs
 * share one broker, given to them by URL, so the nemesis does not restart it here ({@code LocalKafkaTest}
 * restarts one; a run on the lab's own broker restarts it), and the sabotaged runs play no faults, to keep
 * the test short.
 */
class ConsumerNemesisTest {

    /** Any seed: the schedule kills and stops a child member in every run (asserted below from the faults injected). */
    private static final long SEED = 7;

    private static StoreBackend redis;
    private static TestKafka broker;

    @BeforeAll
    static void start() {
        redis = StoreBackends.open("redis", ProvisioningOptions.defaults());
        broker = TestKafka.startPrivate();
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (broker != null) {
                broker.close();
            }
        } finally {
            if (redis != null) {
                redis.close();
            }
        }
    }

    @Test
    void theAdapterUnderTheNemesisChargesEveryKeyOnceAndCommitsOnlyFinishedRecords() throws Exception {
        ConsumerNemesisResult result = ConsumerNemesis.run(redis, new ConsumerNemesis.Settings(SEED, Duration.ofSeconds(6),
                Duration.ofSeconds(3), true, Sabotage.NONE, true, broker.bootstrapServers()), System.out::println);
        System.out.println(ConsumerReport.text(result));
        assertThat(result.history().faults()).as("faults injected on the group")
                .anyMatch(fault -> fault.injected() && fault.kind().onConsumers() && !fault.member().equals("-"));
        assertThat(result.history().of('C')).as("commits checked").isNotEmpty();
        assertThat(result.violations()).as(ConsumerReport.text(result)).isEmpty();
        assertThat(result.history().ledger().stream().map(dev.idemlab.provider.Charge::orderId).distinct().count())
                .as("every key charged").isEqualTo(result.workload().keys());
    }

    @Test
    void aConsumerThatCommitsItsPollBeforeHandlingItIsFlagged() throws Exception {
        ConsumerNemesisResult result = sabotaged(Sabotage.COMMIT_FIRST);
        assertThat(result.byRule()).as(ConsumerReport.text(result)).containsKey("commit-past-unfinished");
    }

    @Test
    void aHandlerWithoutTheAdapterIsFlaggedForChargingARecordSentTwiceAgain() throws Exception {
        ConsumerNemesisResult result = sabotaged(Sabotage.BARE_HANDLER);
        assertThat(result.workload().duplicates()).as("records sent twice").isPositive();
        assertThat(result.byRule()).as(ConsumerReport.text(result)).containsKey("duplicate-charge");
    }

    private static ConsumerNemesisResult sabotaged(Sabotage sabotage) throws Exception {
        ConsumerNemesisResult result = ConsumerNemesis.run(redis, new ConsumerNemesis.Settings(SEED, Duration.ofSeconds(2),
                Duration.ofSeconds(3), true, sabotage, false, broker.bootstrapServers()), System.out::println);
        System.out.println(ConsumerReport.text(result));
        return result;
    }
}
