package dev.idemlab.idempotency.store.redis;

import dev.idemlab.idempotency.Fingerprint;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.tck.IdempotencyStoreContract;
import dev.idemlab.idempotency.testsupport.LocalRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The store on a Lettuce client the application made and keeps: the contract holds on it, and closing
 * the store closes the store's own connections and leaves the application's client and connections
 * working. The client is made as Spring's connection factory makes one, with no URI of its own.
 */
class RedisStoreOnTheApplicationsClientTest extends IdempotencyStoreContract {

    private static LocalRedis server;
    private static RedisClient applicationClient;
    private static RedisIdempotencyStore store;
    private static RawRedis raw;

    @BeforeAll
    static void startServer() {
        server = LocalRedis.start();
        applicationClient = RedisClient.create();
        store = new RedisIdempotencyStore(applicationClient, RedisStoreConfig.of(server.uri()));
        raw = new RawRedis(server.uri());
        raw.firstRoundTrip(store);
    }

    @AfterAll
    static void stopServer() {
        raw.close();
        store.close();
        applicationClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        server.close();
    }

    @Override
    protected IdempotencyStore store() {
        return store;
    }

    @Override
    protected void forceExpiry(String namespace) {
        raw.expireNow(store.keyOf(namespace));
    }

    @Test
    void closingAStoreOnTheApplicationsClientClosesItsConnectionsAndLeavesTheClientRunning() {
        StatefulRedisConnection<String, String> applications = applicationClient.connect(RedisURI.create(server.uri()));
        long before = connectedClients();

        RedisIdempotencyStore own = new RedisIdempotencyStore(applicationClient,
                RedisStoreConfig.custom().uri(server.uri()).keyPrefix("borrowed:").build());
        raw.firstRoundTrip(own);
        AtomicInteger charges = new AtomicInteger();
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(own).build();
        IdempotentCall call = IdempotentCall.of("payment.charge", "k-borrowed",
                Fingerprint.ofFields(Map.of("amount", 500)));
        for (int i = 0; i < 2; i++) {
            assertThat(coordinator.execute(call, ResultCodec.json(String.class),
                    () -> "ch_" + charges.incrementAndGet())).isEqualTo("ch_1");
        }
        assertThat(charges).hasValue(1);
        assertThat(connectedClients()).isGreaterThan(before);

        own.close();

        await().atMost(Duration.ofSeconds(10)).until(() -> connectedClients() == before);
        assertThat(applications.sync().ping()).isEqualTo("PONG");
        try (StatefulRedisConnection<String, String> fresh = applicationClient.connect(RedisURI.create(server.uri()))) {
            assertThat(fresh.sync().get("borrowed:{payment.charge:k-borrowed}")).startsWith("3|c|");
        }
        applications.close();
    }

    @Test
    void closingAStoreThatMadeItsOwnClientShutsItDown() {
        long before = connectedClients();
        RedisIdempotencyStore own = new RedisIdempotencyStore(RedisStoreConfig.of(server.uri()));
        raw.firstRoundTrip(own);

        own.close();

        await().atMost(Duration.ofSeconds(10)).until(() -> connectedClients() == before);
        assertThatThrownBy(() -> own.lookup("payment.charge:after-close")).isInstanceOf(IdempotencyStoreException.class);
    }

    @Test
    void aClusterConfigIsRefusedWithAStandaloneClient() {
        assertThatThrownBy(() -> new RedisIdempotencyStore(applicationClient,
                RedisStoreConfig.of("redis-cluster://127.0.0.1:7000")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cluster");
    }

    /** The server's count of client connections, the raw connection included. */
    /**
     * A user whose ACL allows no channel (Redis 7's default for a new user) cannot SUBSCRIBE: the
     * connection opened for it is closed at once, not kept, and not opened again by every waiter. Each
     * used to leave one more connection on the application's client, which the store's close never ended.
     */
    @Test
    void aSubscriptionTheServerRefusesLeavesNoConnectionBehindOnTheApplicationsClient() {
        raw.commands().aclSetuser("nochannels", io.lettuce.core.AclSetuserArgs.Builder.on().addPassword("pw")
                .allKeys().allCommands().resetChannels());
        String uri = "redis://nochannels:pw@" + server.address();
        RedisIdempotencyStore refused = new RedisIdempotencyStore(applicationClient,
                RedisStoreConfig.custom().uri(uri).keyPrefix("nochannels:").build());
        try {
            raw.firstRoundTrip(refused);
            long before = connectedClients();
            for (int i = 0; i < 20; i++) {
                refused.subscribe("payment.charge:k-" + i, () -> { }).close(); // as 20 waiters would
            }
            // A refused connection is closed asynchronously: wait for the server to see it go, never longer.
            await().atMost(Duration.ofSeconds(10)).until(() -> connectedClients() == before);
            assertThat(connectedClients()).as("connections after 20 refused subscriptions").isEqualTo(before);
        } finally {
            refused.close();
            raw.commands().aclDeluser("nochannels");
        }
    }

    private static long connectedClients() {
        return raw.commands().clientList().lines().filter(line -> !line.isBlank()).count();
    }
}
