package dev.idemlab.lab.faults;

import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.IdempotencyStoreException.Failure;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.store.redis.RedisIdempotencyStore;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.RedisBackend;
import dev.idemlab.lab.infra.StoreBackends;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The proxy's {@code drop-requests} fault on a real Redis: while it is on, a store call times out and
 * nothing of it reaches the server (the key holds no record, as a connection straight to the server
 * reads it), unlike {@code drop-replies}, whose requests run; once it ends, the connections reset and
 * the store's calls get through again. The nemesis's outage in which a complete or a renewal keeps
 * failing without landing rests on this.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DroppedRequestsTest {

    private static final String FINGERPRINT = "ab".repeat(32);

    private RedisBackend redis;

    @BeforeAll
    void startServer() {
        redis = (RedisBackend) StoreBackends.open("redis", ProvisioningOptions.defaults());
    }

    @AfterAll
    void stopServer() {
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void aRequestDroppedOnItsWayNeverRunsAndTheStoreGetsThroughOnceTheFaultEnds() throws Exception {
        try (TcpProxy proxy = TcpProxy.to(java.net.URI.create(redis.uri()));
             RedisIdempotencyStore throughProxy = redis.openStoreThrough(proxy.port());
             RedisIdempotencyStore direct = new RedisIdempotencyStore(throughProxy.config().toBuilder()
                     .uri(redis.uri()).build())) {
            String namespace = "payment.charge:dropped-" + System.nanoTime();
            throughProxy.lookup(namespace); // the proxied connection is open

            proxy.dropRequests(true);
            assertThatThrownBy(() -> throughProxy.reserve(namespace, "token-1", FINGERPRINT, Duration.ofSeconds(30)))
                    .isInstanceOfSatisfying(IdempotencyStoreException.class,
                            e -> assertThat(e.failure()).isEqualTo(Failure.TIMEOUT));
            assertThat(direct.lookup(namespace)).as("the dropped reserve never ran on the server").isEmpty();

            proxy.stopDroppingRequests();
            Awaitility.await().atMost(Duration.ofSeconds(10)).ignoreExceptions().untilAsserted(() ->
                    assertThat(throughProxy.reserve(namespace, "token-2", FINGERPRINT, Duration.ofSeconds(30)))
                            .isInstanceOf(Reservation.Acquired.class));
            assertThat(direct.lookup(namespace)).isPresent();
        }
    }
}
