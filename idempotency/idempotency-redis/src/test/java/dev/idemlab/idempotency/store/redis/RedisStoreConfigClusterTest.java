package dev.idemlab.idempotency.store.redis;

import dev.idemlab.idempotency.InvalidIdempotencyConfigException;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** How a config names a Redis Cluster, and the rules for the fence retention and WAIT. */
class RedisStoreConfigClusterTest {

    @Test
    void aClusterSeedListNamesEverySeedWithTheListsCredentials() {
        RedisStoreConfig config = RedisStoreConfig.of("redis-cluster://:secret@10.0.0.1:7000,10.0.0.2:7001");
        assertThat(config.cluster()).isTrue();
        assertThat(config.seedUris()).containsExactly("redis://:secret@10.0.0.1:7000", "redis://:secret@10.0.0.2:7001");
        assertThat(config.address()).isEqualTo("10.0.0.1:7000,10.0.0.2:7001");
        assertThat(config.toString()).doesNotContain("secret");
    }

    @Test
    void clusterTrueMakesAPlainUriOneSeedAndAStandaloneUriStaysStandalone() {
        assertThat(RedisStoreConfig.custom().uri("redis://127.0.0.1:7000").cluster(true).build().cluster()).isTrue();
        assertThat(RedisStoreConfig.of("redis://127.0.0.1:6379").cluster()).isFalse();
        assertThat(RedisStoreConfig.of("redis-cluster://h:1").toBuilder().build().cluster()).isTrue();
    }

    @Test
    void aClusterHasOnlyDatabaseZeroAndEverySeedNeedsAPort() {
        assertThatThrownBy(() -> RedisStoreConfig.custom().uri("redis://h:7000/3").cluster(true).build())
                .isInstanceOf(InvalidIdempotencyConfigException.class).hasMessageContaining("only database 0");
        assertThatThrownBy(() -> RedisStoreConfig.of("redis-cluster://h:7000/3"))
                .isInstanceOf(InvalidIdempotencyConfigException.class).hasMessageContaining("only database 0");
        assertThatThrownBy(() -> RedisStoreConfig.of("redis-cluster://h1:7000,h2"))
                .isInstanceOf(InvalidIdempotencyConfigException.class).hasMessageContaining("host:port");
        assertThatThrownBy(() -> RedisStoreConfig.of("redis-cluster://"))
                .isInstanceOf(InvalidIdempotencyConfigException.class);
    }

    @Test
    void waitNeedsATimeoutBelowTheCommandTimeout() {
        assertThatThrownBy(() -> RedisStoreConfig.custom().uri("redis://h").waitForReplicas(1, Duration.ofSeconds(1)).build())
                .isInstanceOf(InvalidIdempotencyConfigException.class).hasMessageContaining("shorter than the commandTimeout");
        assertThatThrownBy(() -> RedisStoreConfig.custom().uri("redis://h").waitForReplicas(-1, Duration.ofMillis(1)).build())
                .isInstanceOf(InvalidIdempotencyConfigException.class).hasMessageContaining("0 (off) or more");
        RedisStoreConfig waiting = RedisStoreConfig.custom().uri("redis://h").waitForReplicas(1, Duration.ofMillis(100)).build();
        assertThat(waiting.waitReplicas()).isEqualTo(1);
        assertThat(waiting.toBuilder().build().waitTimeout()).isEqualTo(Duration.ofMillis(100));
    }
}
