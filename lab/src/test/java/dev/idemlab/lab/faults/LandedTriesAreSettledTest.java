package dev.idemlab.lab.faults;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Completed;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.IdempotencyStoreException.Failure;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.spi.StoredResult;
import dev.idemlab.idempotency.store.redis.RedisIdempotencyStore;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.RedisBackend;
import dev.idemlab.lab.infra.StoreBackends;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.FakePaymentProvider;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static dev.idemlab.lab.faults.FaultRig.CHARGE;
import static dev.idemlab.lab.faults.FaultRig.call;
import static dev.idemlab.lab.faults.FaultRig.key;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 24, on a real Redis: a store call whose try timed out may have landed, whatever a later try
 * reported, and the coordinator acts on it. A reserve whose reply the TCP proxy swallowed (the marker
 * landed) and whose patience retry found the connection gone is settled in the background: the
 * retry replays; so is one whose connection reset while its reply was on the way. A completion
 * stalled by {@code CLIENT PAUSE} past the client's timeout (it lands when
 * the pause ends) and retried is the call's own: EXECUTED, not stale. The wrappers only choose the
 * moment and record what the store answered; the faults are the network's and the server's.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LandedTriesAreSettledTest {

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
    void aReserveWhoseReplyWasLostAndWhoseRetryFoundTheConnectionGoneIsSettledSoTheRetryReplays() throws Exception {
        try (TcpProxy proxy = TcpProxy.to(java.net.URI.create(redis.uri()));
             RedisIdempotencyStore throughProxy = redis.openStoreThrough(proxy.port());
             RedisIdempotencyStore direct = new RedisIdempotencyStore(throughProxy.config().toBuilder()
                     .uri(redis.uri()).build())) {
            throughProxy.lookup("payment.charge:warm-up"); // the proxied connection is open
            IdempotentCall call = call(key(), 10);
            List<Failure> reserveFailures = new CopyOnWriteArrayList<>();
            AtomicBoolean landed = new AtomicBoolean();
            AtomicBoolean injected = new AtomicBoolean();
            IdempotencyStore store = new ForwardingIdempotencyStore(throughProxy) {
                @Override
                public Reservation reserve(String namespace, String token, String fingerprint, Duration lease) {
                    boolean first = injected.compareAndSet(false, true);
                    proxy.dropReplies(first); // the first reserve reaches Redis; its reply never comes back
                    try {
                        return super.reserve(namespace, token, fingerprint, lease);
                    } catch (IdempotencyStoreException e) {
                        reserveFailures.add(e.failure());
                        if (first) {
                            landed.set(direct.lookup(namespace).orElse(null) instanceof IdempotencyRecord.Pending);
                            proxy.dropReplies(false);
                            proxy.disconnect(); // the connection drops, and no new one is let in
                            awaitStoreSeesItGone(throughProxy);
                        }
                        throw e;
                    }
                }
            };
            FakePaymentProvider provider = FaultRig.provider();
            IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(store)
                    .config(IdempotencyConfig.ofDefaults()).build();

            IdempotentResult<Charge> first = coordinator.call(call, CHARGE, () -> provider.charge("o-1", 10, null));
            assertThat(reserveFailures).as("the first try timed out, the patience retry found no server")
                    .hasSize(2).startsWith(Failure.TIMEOUT);
            assertThat(reserveFailures.get(1)).isIn(Failure.UNREACHABLE, Failure.CIRCUIT_OPEN);
            assertThat(landed).as("the first try's marker landed").isTrue();
            assertThat(first.outcome()).isEqualTo(Outcome.FAILED_OPEN);

            proxy.reconnect(); // the network is back
            retryReplaysOnceSettled(direct, coordinator, call, provider);
        }
    }

    /**
     * A reserve that ran on the server and whose connection then reset, its reply still on the way,
     * was reported as a server that could not be reached, as if it never landed: the call failed
     * open, nothing settled the marker, and a retry found the key held by nobody until the lease ran
     * out, then ran the action again. A command lost in flight may have landed: the reserve is
     * settled in the background and a later retry replays.
     */
    @Test
    void aReserveThatLandedAndWhoseConnectionResetIsSettledSoTheRetryReplays() throws Exception {
        try (TcpProxy proxy = TcpProxy.to(java.net.URI.create(redis.uri()));
             RedisIdempotencyStore throughProxy = redis.openStoreThrough(proxy.port());
             RedisIdempotencyStore direct = new RedisIdempotencyStore(throughProxy.config().toBuilder()
                     .uri(redis.uri()).build())) {
            throughProxy.lookup("payment.charge:warm-up"); // the proxied connection is open
            IdempotentCall call = call(key(), 10);
            List<IdempotencyStoreException> reserveFailures = new CopyOnWriteArrayList<>();
            AtomicBoolean injected = new AtomicBoolean();
            IdempotencyStore store = new ForwardingIdempotencyStore(throughProxy) {
                @Override
                public Reservation reserve(String namespace, String token, String fingerprint, Duration lease) {
                    boolean first = injected.compareAndSet(false, true);
                    proxy.dropReplies(first); // the first reserve reaches Redis; its reply is held back
                    CompletableFuture<Void> reset = first ? resetOnceLanded(proxy, direct, namespace)
                            : CompletableFuture.completedFuture(null);
                    try {
                        return super.reserve(namespace, token, fingerprint, lease);
                    } catch (IdempotencyStoreException e) {
                        reserveFailures.add(e);
                        if (first) {
                            reset.join();
                            proxy.dropReplies(false);
                            proxy.disconnect(); // no new connection is let in: the patience retry fails too
                            awaitStoreSeesItGone(throughProxy);
                        }
                        throw e;
                    }
                }
            };
            FakePaymentProvider provider = FaultRig.provider();
            IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(store)
                    .config(IdempotencyConfig.ofDefaults()).build();

            IdempotentResult<Charge> first = coordinator.call(call, CHARGE, () -> provider.charge("o-1", 10, null));
            assertThat(reserveFailures).as("the reset reached the reserve in flight").isNotEmpty();
            assertThat(reserveFailures.get(0).mayHaveLanded()).as("lost in flight: " + reserveFailures.get(0))
                    .isTrue();
            assertThat(first.outcome()).isEqualTo(Outcome.FAILED_OPEN);

            proxy.reconnect(); // the network is back
            retryReplaysOnceSettled(direct, coordinator, call, provider);
        }
    }

    @Test
    void aCompletionThatTimedOutButLandedAndWasRetriedIsExecutedNotStale() throws Exception {
        RedisClient client = RedisClient.create(redis.uri());
        try (StatefulRedisConnection<String, String> raw = client.connect();
             IdempotencyStore real = redis.openStore()) {
            List<String> completeAnswers = new CopyOnWriteArrayList<>();
            AtomicBoolean injected = new AtomicBoolean();
            IdempotencyStore store = new ForwardingIdempotencyStore(real) {
                @Override
                public boolean complete(String namespace, String token, String fingerprint, StoredResult result,
                                        Duration ttl) {
                    if (injected.compareAndSet(false, true)) {
                        // Longer than the 1 s command timeout: the write waits in Redis and lands when the pause ends.
                        raw.sync().dispatch(CommandType.CLIENT, new StatusOutput<>(StringCodec.UTF8),
                                new CommandArgs<>(StringCodec.UTF8).add("PAUSE").add(1500).add("ALL"));
                    }
                    try {
                        boolean written = super.complete(namespace, token, fingerprint, result, ttl);
                        completeAnswers.add(String.valueOf(written));
                        return written;
                    } catch (IdempotencyStoreException e) {
                        completeAnswers.add(e.failure().name());
                        throw e;
                    }
                }
            };
            FakePaymentProvider provider = FaultRig.provider();
            IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(store)
                    .config(IdempotencyConfig.ofDefaults()).build();
            IdempotentCall call = call(key(), 10);

            IdempotentResult<Charge> first = coordinator.call(call, CHARGE, () -> provider.charge("o-1", 10, null));
            assertThat(completeAnswers).as("timed out, then the retry found the first write landed")
                    .containsExactly(Failure.TIMEOUT.name(), "false");
            assertThat(first.outcome()).isEqualTo(Outcome.EXECUTED);
            assertThat(coordinator.stats().stale()).isZero();
            assertThat(coordinator.stats().count(Outcome.LEASE_LOST)).isZero();

            Optional<IdempotencyRecord> stored = real.lookup(call.namespace());
            assertThat(stored).containsInstanceOf(Completed.class);
            IdempotentResult<Charge> retry = coordinator.call(call, CHARGE, () -> provider.charge("o-1", 10, null));
            assertThat(retry.outcome()).isEqualTo(Outcome.REPLAYED);
            assertThat(retry.value().id()).isEqualTo("ch_1");
            assertThat(provider.chargeIds()).containsExactly("ch_1");
        } finally {
            client.shutdown();
        }
    }

    /** Once the background settle completed the marker, a retry replays the first call's charge: one charge. */
    private static void retryReplaysOnceSettled(IdempotencyStore direct, IdempotencyCoordinator coordinator,
                                                IdempotentCall call, FakePaymentProvider provider) throws Exception {
        Awaitility.await().atMost(Duration.ofSeconds(30))
                .until(() -> direct.lookup(call.namespace()).orElse(null) instanceof Completed);
        IdempotentResult<Charge> retry = coordinator.call(call, CHARGE, () -> provider.charge("o-1", 10, null));
        assertThat(retry.outcome()).isEqualTo(Outcome.REPLAYED);
        assertThat(retry.value().id()).isEqualTo("ch_1");
        assertThat(provider.chargeIds()).containsExactly("ch_1");
    }

    /** Resets every proxied connection once the reserve's marker is on the server, its reply held back. */
    private static CompletableFuture<Void> resetOnceLanded(TcpProxy proxy, IdempotencyStore direct, String namespace) {
        return CompletableFuture.runAsync(() -> {
            Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5))
                    .until(() -> direct.lookup(namespace).orElse(null) instanceof IdempotencyRecord.Pending);
            proxy.reset();
        }).orTimeout(30, TimeUnit.SECONDS);
    }

    /** Waits until the store's own calls fail as unreachable (or on the circuit that opened), not as a timeout. */
    private static void awaitStoreSeesItGone(IdempotencyStore store) {
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
            try {
                store.lookup("payment.charge:probe");
                return false;
            } catch (IdempotencyStoreException e) {
                return e.failure() == Failure.UNREACHABLE || e.failure() == Failure.CIRCUIT_OPEN;
            }
        });
    }
}
