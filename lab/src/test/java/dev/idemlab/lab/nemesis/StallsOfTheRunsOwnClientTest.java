package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.store.postgres.LocalEffects;
import dev.idemlab.idempotency.store.postgres.PostgresIdempotencyStore;
import dev.idemlab.idempotency.store.postgres.PostgresStoreConfig;
import dev.idemlab.lab.infra.PostgresBackend;
import dev.idemlab.lab.infra.ProvisioningOptions;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The stall watch sees what the run's calls meet in the run's own client: a pool whose every connection
 * is busy makes a call wait its second and fail with the server idle, and the coordinator fails open on
 * it as told. Found through HTTP on PostgreSQL (seed 250034963178845): three clients' callers queued by
 * the thousand for the store's sixteen connections on a loaded machine, every second of the run, and the
 * checker called their fail-opens unexplained, for the watch probed on a client of its own only. A real
 * PostgreSQL, a store with a pool of one connection, held by another user of the pool.
 */
class StallsOfTheRunsOwnClientTest {

    @Test
    void aPoolWithEveryConnectionBusyIsAStallTheWatchSees() throws Exception {
        try (PostgresBackend backend = PostgresBackend.open(ProvisioningOptions.defaults());
             PostgresIdempotencyStore store = new PostgresIdempotencyStore(PostgresStoreConfig.custom(backend.jdbcUrl())
                     .credentials(backend.user(), backend.password()).namespacePrefix("stall-pool:")
                     .maxPoolSize(1).poolTimeout(Duration.ofSeconds(1)).build())) {
            store.lookup("stall-pool:warm-up");
            try (Connection busy = LocalEffects.of(store).dataSource().getConnection();
                 StallWatch watch = StallWatch.start(store, System.nanoTime())) {
                assertThat(busy.isValid(1)).as("the pool's one connection, held").isTrue();
                await().atMost(Duration.ofSeconds(30)).until(() -> !watch.seen().isEmpty());
                assertThat(watch.stop()).first().satisfies(stall ->
                        assertThat(stall.nanos()).isGreaterThanOrEqualTo(StallWatch.THRESHOLD));
            }
        }
    }
}
