package dev.idemlab.peers;

import dev.idemlab.idempotency.testsupport.LocalRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The post's in-flight experiment on every peer, against a real Redis: caller B sends the same key and
 * payload once caller A is inside the provider (a latch, not a sleep), and the ledger says what the
 * library let through. Each test records the behaviour observed; a library that changes it fails here.
 */
class InFlightOnPeersTest {

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

    private static ExperimentResult inFlight(PeerFactory factory) {
        ExperimentOptions staged = ExperimentOptions.defaults().withRetryAt(Duration.ZERO);
        ExperimentResult result = new PeerExperiments(factory, redis.uri(), staged).inFlight();
        Call a = result.calls().get(0);
        Call b = result.calls().get(1);
        assertThat(b.startMs()).as("B was sent while A was still running").isLessThan(a.endMs());
        return result;
    }

    @Test
    void jdempotentInMemoryAnswersTheRetryWithNullWhileTheChargeRuns() {
        ExperimentResult result = inFlight(Peers.jdempotentMemory());

        assertThat(result.chargeIds()).containsExactly("ch_1");
        assertThat(result.calls().get(0).response().isCharge("ch_1")).isTrue();
        assertThat(result.calls().get(1).response().kind()).isEqualTo(Response.Kind.NULL);
        assertThat(result.verdict()).isEqualTo(Verdict.WRONG_ANSWER);
    }

    @Test
    void jdempotentOnRedisAnswersTheRetryWithNullWhileTheChargeRuns() {
        ExperimentResult result = inFlight(Peers.jdempotentRedis());

        assertThat(result.chargeIds()).containsExactly("ch_1");
        assertThat(result.calls().get(0).response().isCharge("ch_1")).isTrue();
        assertThat(result.calls().get(1).response().kind()).isEqualTo(Response.Kind.NULL);
        assertThat(result.verdict()).isEqualTo(Verdict.WRONG_ANSWER);
    }

    @Test
    void redissonLockMakesTheRetryWaitAndReplaysTheCharge() {
        ExperimentResult result = inFlight(Peers.redissonLock());

        assertThat(result.chargeIds()).containsExactly("ch_1");
        assertThat(result.responses()).containsExactly("ch_1", "ch_1");
        Call a = result.calls().get(0);
        Call b = result.calls().get(1);
        assertThat(b.endMs()).as("B returned only after A's charge").isGreaterThanOrEqualTo(a.endMs());
        assertThat(result.verdict()).isEqualTo(Verdict.ONE_CHARGE_CONSISTENT);
    }

    @Test
    void springIntegrationRejectsTheRetryAsADuplicate() {
        ExperimentResult result = inFlight(Peers.springIntegration());

        assertThat(result.chargeIds()).containsExactly("ch_1");
        assertThat(result.calls().get(0).response().isCharge("ch_1")).isTrue();
        Response b = result.calls().get(1).response();
        assertThat(b.kind()).isEqualTo(Response.Kind.ERROR);
        assertThat(b.detail()).startsWith("MessageRejectedException");
        assertThat(b.signal()).as("its message says the message is a duplicate")
                .isEqualTo(ErrorSignal.IN_PROGRESS_OR_CONFLICT);
        assertThat(result.verdict()).isEqualTo(Verdict.ONE_CHARGE_CONSISTENT);
    }

    @Test
    void camelHandsTheRetryItsOwnRequestBack() {
        ExperimentResult result = inFlight(Peers.camel());

        assertThat(result.chargeIds()).containsExactly("ch_1");
        assertThat(result.calls().get(0).response().isCharge("ch_1")).isTrue();
        Response b = result.calls().get(1).response();
        assertThat(b.kind()).isEqualTo(Response.Kind.OTHER);
        assertThat(b.detail()).startsWith("ChargeRequest ");
        assertThat(result.verdict()).isEqualTo(Verdict.WRONG_ANSWER);
    }
}
