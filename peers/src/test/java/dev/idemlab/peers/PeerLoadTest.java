package dev.idemlab.peers;

import dev.idemlab.idempotency.testsupport.LocalRedis;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The load run's accounting, checked against the ledger on a peer whose outcome is certain. */
class PeerLoadTest {

    private static final LoadOptions SMALL = new LoadOptions(8, 10, Duration.ofMillis(5), Duration.ofSeconds(60));

    @Test
    void redissonLockChargesEachKeyOnceUnderConcurrentDuplicates() {
        try (LocalRedis redis = LocalRedis.start()) {
            LoadReport report = new PeerLoad(Peers.redissonLock(), redis.uri(), SMALL).run();

            assertThat(report.requests()).isEqualTo(80);
            assertThat(report.charges()).isEqualTo(10);
            assertThat(report.duplicateCharges()).isZero();
            assertThat(report.consistent()).isEqualTo(80);
            assertThat(report.duplicatesPer100k()).isZero();
        }
    }

    @Test
    void everyResponseAndEveryChargeIsAccountedFor() {
        LoadReport report = new PeerLoad(Peers.jdempotentMemory(), null, SMALL).run();

        assertThat(report.requests()).isEqualTo(80);
        assertThat(report.consistent() + report.otherCharge() + report.nulls() + report.inProgressErrors()
                + report.otherErrors() + report.otherObjects()).isEqualTo(80);
        assertThat(report.charges()).isEqualTo(10 - report.keysNeverCharged() + report.duplicateCharges());
        assertThat(report.duplicatesPer100k()).isEqualTo(report.duplicateCharges() * 100_000.0 / 80);
    }
}
