package dev.idemlab.lab.leases;

import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.IdempotencyStoreException.Failure;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.store.postgres.PostgresIdempotencyStore;
import dev.idemlab.idempotency.store.postgres.PostgresStoreConfig;
import dev.idemlab.idempotency.store.redis.RedisIdempotencyStore;
import dev.idemlab.idempotency.store.redis.RedisStoreConfig;
import dev.idemlab.lab.faults.TcpProxy;
import dev.idemlab.lab.infra.PostgresBackend;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.RedisBackend;
import dev.idemlab.lab.infra.StoreBackends;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.net.URI;
import java.time.Duration;
import java.util.UUID;
import java.util.function.IntFunction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 24: a live holder's renewal is not held back by the store's circuit breaker. The nemesis found
 * Redis takeovers a second or two after a fault had ended: new requests' failures had opened the
 * circuit, each probe after the cool-down met the client still reconnecting and opened it again, and
 * the renewals, which went through the same circuit, failed fast until the holder's lease ran out in
 * the store. On both network stores a renewal now goes past the circuit (PostgreSQL on its own pool).
 *
 * <p>The server goes away for real (the TCP proxy in front of it stops listening), requests open the
 * circuit, the server comes back. The circuit's cool-down is a minute here, so that it is certainly
 * still open when the renewal is tried: the renewal lands while a lookup still fails on the open
 * circuit. Nothing asserts how long anything took.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RenewalsPassAnOpenCircuitTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration COOL_DOWN = Duration.ofMinutes(1);

    private RedisBackend redis;
    private PostgresBackend postgres;

    @BeforeAll
    void startServers() {
        redis = (RedisBackend) StoreBackends.open("redis", ProvisioningOptions.defaults());
        postgres = (PostgresBackend) StoreBackends.open("postgres", ProvisioningOptions.defaults());
    }

    @AfterAll
    void stopServers() {
        if (redis != null) {
            redis.close();
        }
        if (postgres != null) {
            postgres.close();
        }
    }

    @Test
    void redisRenewalGoesPastTheCircuitThatRequestsOpened() throws Exception {
        try (TcpProxy proxy = TcpProxy.to(URI.create(redis.uri()))) {
            renewsThroughAnOpenCircuit(proxy, port -> new RedisIdempotencyStore(RedisStoreConfig.custom()
                    .uri("redis://127.0.0.1:" + port).keyPrefix("renew-circuit-" + UUID.randomUUID() + ":")
                    .circuitCoolDown(COOL_DOWN).build()));
        }
    }

    @Test
    void postgresRenewalGoesPastTheCircuitThatRequestsOpened() throws Exception {
        try (TcpProxy proxy = TcpProxy.to(postgres.address().getHostString(), postgres.address().getPort())) {
            renewsThroughAnOpenCircuit(proxy, port -> new PostgresIdempotencyStore(PostgresStoreConfig
                    .custom(postgres.jdbcUrl().replaceFirst("^jdbc:postgresql://[^/]*/", "jdbc:postgresql://127.0.0.1:"
                            + port + "/"))
                    .credentials(postgres.user(), postgres.password())
                    .namespacePrefix("renew-circuit-" + UUID.randomUUID() + ":")
                    .circuitCoolDown(COOL_DOWN).build()));
        }
    }

    private static void renewsThroughAnOpenCircuit(TcpProxy proxy, IntFunction<IdempotencyStore> storeThrough)
            throws Exception {
        try (IdempotencyStore store = storeThrough.apply(proxy.port())) {
            String held = "payment.charge:" + UUID.randomUUID();
            assertThat(store.reserve(held, "holder", "f".repeat(64), LEASE)).isInstanceOf(Reservation.Acquired.class);

            proxy.disconnect();
            Awaitility.await("a request finds the server gone and opens the circuit").atMost(Duration.ofSeconds(30))
                    .until(() -> failureOfALookup(store) == Failure.CIRCUIT_OPEN);
            proxy.reconnect();

            Awaitility.await("the holder's renewal lands once the server is back").atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(50)).ignoreException(IdempotencyStoreException.class)
                    .until(() -> store.renew(held, "holder", LEASE));
            assertThatThrownBy(() -> store.lookup(held))
                    .as("requests still fail fast: the circuit is open, and the renewal went past it")
                    .isInstanceOfSatisfying(IdempotencyStoreException.class,
                            e -> assertThat(e.failure()).isEqualTo(Failure.CIRCUIT_OPEN));
        }
    }

    private static Failure failureOfALookup(IdempotencyStore store) {
        try {
            store.lookup("payment.charge:probe");
            return null;
        } catch (IdempotencyStoreException e) {
            return e.failure();
        }
    }
}
