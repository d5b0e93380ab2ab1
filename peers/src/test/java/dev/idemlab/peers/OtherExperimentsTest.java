package dev.idemlab.peers;

import dev.idemlab.idempotency.testsupport.LocalRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** Key reuse, provider timeout and store down, on the peers where each shows something. */
class OtherExperimentsTest {

    private static final ExperimentOptions QUICK = ExperimentOptions.defaults().withLatency(Duration.ofMillis(20));

    private static LocalRedis redis;

    @BeforeAll
    static void startRedis() {
        redis = LocalRedis.start();
    }

    @AfterAll
    static void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void jdempotentChargesTheReusedKeyWithAnotherAmountAgain() {
        ExperimentResult result = new PeerExperiments(Peers.jdempotentMemory(), null, QUICK).keyReuse();

        assertThat(result.responses()).containsExactly("ch_1", "ch_1", "ch_2");
        assertThat(result.ledger()).extracting(c -> c.amount()).containsExactly(10L, 5L);
        assertThat(result.verdict()).isEqualTo(Verdict.WRONG_ANSWER);
    }

    @Test
    void redissonLockReplaysTheFirstChargeForAnotherAmount() {
        ExperimentResult result = new PeerExperiments(Peers.redissonLock(), redis.uri(), QUICK).keyReuse();

        assertThat(result.responses()).containsExactly("ch_1", "ch_1", "ch_1");
        assertThat(result.chargeIds()).containsExactly("ch_1");
        assertThat(result.verdict()).isEqualTo(Verdict.WRONG_ANSWER);
    }

    @Test
    void springIntegrationRemembersTheFailedCallAndNeverCharges() {
        ExperimentResult result = new PeerExperiments(Peers.springIntegration(), redis.uri(), QUICK).providerTimeout();

        assertThat(result.calls().get(0).response().signal()).isEqualTo(ErrorSignal.PROVIDER_TIMEOUT);
        assertThat(result.calls().get(1).response().detail()).startsWith("MessageRejectedException");
        assertThat(result.ledger()).isEmpty();
        assertThat(result.verdict()).isEqualTo(Verdict.WRONG_ANSWER);
    }

    @Test
    void camelForgetsTheFailedCallSoTheRetryCharges() {
        ExperimentResult result = new PeerExperiments(Peers.camel(), redis.uri(), QUICK).providerTimeout();

        assertThat(result.calls().get(0).response().signal()).isEqualTo(ErrorSignal.PROVIDER_TIMEOUT);
        assertThat(result.chargeIds()).containsExactly("ch_1");
        assertThat(result.calls().get(1).response().isCharge("ch_1")).isTrue();
        assertThat(result.verdict()).isEqualTo(Verdict.ONE_CHARGE_CONSISTENT);
    }

    @Test
    void camelFailsClosedWhenItsRedisIsGone() {
        LocalRedis doomed = LocalRedis.start();
        try {
            ExperimentResult result = new PeerExperiments(Peers.camel(), redis.uri(), QUICK)
                    .storeDown(ServerOutage.of(doomed));

            assertThat(result.ledger()).isEmpty();
            assertThat(result.calls()).hasSize(1);
            assertThat(result.calls().get(0).response().signal()).isEqualTo(ErrorSignal.STORE_UNAVAILABLE);
            assertThat(result.verdict()).isEqualTo(Verdict.ONE_CHARGE_CONSISTENT);
        } finally {
            doomed.close();
        }
    }

    @Test
    void anInMemoryPeerHasNoStoreToLose() {
        LocalRedis doomed = LocalRedis.start();
        try {
            ExperimentResult result = new PeerExperiments(Peers.jdempotentMemory(), null, QUICK)
                    .storeDown(ServerOutage.of(doomed));

            assertThat(result.verdict()).isEqualTo(Verdict.NOT_SUPPORTED);
            assertThat(result.calls()).isEmpty();
        } finally {
            doomed.close();
        }
    }
}
