package dev.idemlab.lab.infra;

import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.spi.StoredResult;
import org.junit.jupiter.api.Test;
import org.testcontainers.junit.jupiter.Testcontainers;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The container origin; skipped, not failed, on a machine without Docker. */
@Testcontainers(disabledWithoutDocker = true)
class PostgresContainerTest {

    @Test
    void aForcedContainerOriginGivesAWorkingStore() {
        try (PostgresBackend backend = PostgresBackend.open(new ProvisioningOptions(null, null, null, Origin.CONTAINER));
             IdempotencyStore store = backend.openStore()) {
            assertThat(backend.server().origin()).isEqualTo(Origin.CONTAINER);
            String ns = "payment.charge:container";
            assertThat(store.reserve(ns, "t1", "f", Duration.ofSeconds(30))).isInstanceOf(Reservation.Acquired.class);
            assertThat(store.complete(ns, "t1", "a".repeat(64), StoredResult.of("\"ch_1\""), Duration.ofHours(1))).isTrue();
            assertThat(store.lookup(ns)).containsInstanceOf(IdempotencyRecord.Completed.class);
        }
    }
}
