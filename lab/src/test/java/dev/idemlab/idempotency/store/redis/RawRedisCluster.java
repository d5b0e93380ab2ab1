package dev.idemlab.idempotency.store.redis;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;

import java.time.Duration;

import static org.awaitility.Awaitility.await;

/** A plain Lettuce cluster connection beside the store, to look at and change what the cluster holds. */
final class RawRedisCluster implements AutoCloseable {

    private final RedisClusterClient client;
    private final StatefulRedisClusterConnection<String, String> connection;

    RawRedisCluster(String seedUri) {
        this.client = RedisClusterClient.create(RedisStoreConfig.of(seedUri).seedUris().stream()
                .map(RedisURI::create).toList());
        this.connection = client.connect();
    }

    RedisAdvancedClusterCommands<String, String> commands() {
        return connection.sync();
    }

    /** Makes {@code key} expire now, by its master's clock, and waits until the cluster agrees. */
    void expireNow(String key) {
        commands().pexpire(key, 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> commands().exists(key) == 0);
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
}
