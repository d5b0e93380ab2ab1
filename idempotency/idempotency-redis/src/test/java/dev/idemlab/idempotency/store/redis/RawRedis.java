package dev.idemlab.idempotency.store.redis;

import dev.idemlab.idempotency.testsupport.TestRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import java.time.Duration;

import static org.awaitility.Awaitility.await;

/**
 * A plain Lettuce connection beside the store, so that tests can look at and change what is really
 * on the server. Thread-safe, as the connection is.
 */
final class RawRedis implements AutoCloseable {

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;

    RawRedis(String uri) {
        this.client = RedisClient.create(uri);
        this.connection = client.connect();
    }

    /**
     * A store on {@code server} whose keys go under the server's key prefix: on a server given by URL,
     * the keys the server's close removes, and no other client's. The caller closes it.
     */
    static RedisIdempotencyStore openStore(TestRedis server) {
        return new RedisIdempotencyStore(RedisStoreConfig.custom().uri(server.uri()).keyPrefix(server.keyPrefix()).build());
    }

    /** Closes what was opened, in order, none of it if a start failed before it was: the failure stays the one seen. */
    static void closeAll(AutoCloseable... opened) throws Exception {
        for (AutoCloseable each : opened) {
            if (each != null) {
                each.close();
            }
        }
    }

    RedisCommands<String, String> commands() {
        return connection.sync();
    }

    /**
     * Waits until {@code store} has made one round trip: a server that has just answered PING can still
     * miss a cold client's first connect (within its one-second timeout) on a loaded machine, and a
     * test should not fail for that.
     */
    void firstRoundTrip(RedisIdempotencyStore store) {
        await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> store.lookup("warm-up:1").isEmpty());
    }

    /** Makes {@code key} expire now, by the server's clock, and waits until the server agrees. */
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
