package dev.idemlab.lab.scenario;

import dev.idemlab.lab.infra.Origin;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.RedisBackend;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.infra.StoreBackends;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 29: a SKIP reason is about the store that was asked for. It used to say "it never changes a
 * server given by URL" of a PostgreSQL nobody gave by URL, and "cannot reach the memory store" of a
 * Redis Cluster. On real backends: the memory store, the lab's private Redis, and that same server
 * given by URL.
 */
class CannotStageTest {

    @Test
    void onAnotherStoreTheReasonNamesThatStore() {
        try (StoreBackend memory = StoreBackends.open("memory", ProvisioningOptions.defaults())) {
            assertThat(CannotStage.unlessPrivateRedis("eviction", "sets maxmemory on", memory, "unused"))
                    .isEqualTo("eviction sets maxmemory on the lab's own private single Redis (--store redis); "
                            + "this run's store is memory (in this process)")
                    .doesNotContain("URL");
            assertThat(CannotStage.childCannotReach("crash-mid-charge", memory))
                    .contains("cannot reach this run's store (memory (in this process))");
        }
    }

    @Test
    void onThePrivateRedisItRunsAndOnTheSameServerByUrlItSaysWhyNot() {
        try (RedisBackend own = (RedisBackend) StoreBackends.open("redis", ProvisioningOptions.defaults())) {
            assertThat(CannotStage.unlessPrivateRedis("ghost-reservation", "pauses", own, null)).isNull();

            try (StoreBackend byUrl = StoreBackends.open("redis",
                    new ProvisioningOptions(own.uri(), Origin.URL, null, null))) {
                assertThat(byUrl.server().origin()).isEqualTo(Origin.URL);
                assertThat(CannotStage.unlessPrivateRedis("ghost-reservation", "pauses", byUrl, null))
                        .startsWith("ghost-reservation pauses the lab's own private single Redis")
                        .contains("was given by URL (" + byUrl.server().address() + ")");
            }
        }
    }
}
