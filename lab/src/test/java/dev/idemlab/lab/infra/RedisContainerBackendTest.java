package dev.idemlab.lab.infra;

import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.spi.StoredResult;
import org.junit.jupiter.api.Test;
import org.testcontainers.junit.jupiter.Testcontainers;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** Redis from a {@code redis:7} container; skipped where Docker is not available. */
@Testcontainers(disabledWithoutDocker = true)
class RedisContainerBackendTest {

    @Test
    void aContainerServesTheStoreAndNamesItsVersionAndOrigin() {
        try (RedisBackend backend = RedisBackend.open(new ProvisioningOptions(null, Origin.CONTAINER, null, null));
             IdempotencyStore store = backend.openStore()) {
            System.out.println("container: " + backend.server().describe());
            assertThat(backend.server().origin()).isEqualTo(Origin.CONTAINER);
            assertThat(backend.server().version()).startsWith("7.");
            String ns = "payment.charge:k1";
            assertThat(store.reserve(ns, "t1", "a".repeat(64), Duration.ofSeconds(30))).isInstanceOf(Reservation.Acquired.class);
            assertThat(store.complete(ns, "t1", "a".repeat(64), StoredResult.of("\"ch_1\""), Duration.ofHours(1))).isTrue();
            assertThat(store.lookup(ns)).containsInstanceOf(IdempotencyRecord.Completed.class);
        }
    }
}
