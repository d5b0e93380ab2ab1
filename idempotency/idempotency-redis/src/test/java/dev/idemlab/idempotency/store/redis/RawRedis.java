package dev.idemlab.idempotency.store.redis;

import dev.idemlab.idempotency.testsupport.TestRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.SetArgs;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
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
    /** Values as bytes: a record holds its fingerprint's 32 bytes, which a text codec would mangle. */
    private final StatefulRedisConnection<String, byte[]> binary;

    RawRedis(String uri) {
        this.client = RedisClient.create(uri);
        this.connection = client.connect();
        this.binary = client.connect(RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE));
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

    /** The value under {@code key} as its bytes, or {@code null}. */
    byte[] bytes(String key) {
        return binary.sync().get(key);
    }

    /** Sets {@code key} to {@code value}, byte for byte, with {@code ttl} unless it is null. */
    void setBytes(String key, byte[] value, Duration ttl) {
        if (ttl == null) {
            binary.sync().set(key, value);
        } else {
            binary.sync().set(key, value, SetArgs.Builder.px(ttl.toMillis()));
        }
    }

    /** Makes {@code key} expire now, by the server's clock, and waits until the server agrees. */
    void expireNow(String key) {
        commands().pexpire(key, 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> commands().exists(key) == 0);
    }

    @Override
    public void close() {
        binary.close();
        connection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
}
