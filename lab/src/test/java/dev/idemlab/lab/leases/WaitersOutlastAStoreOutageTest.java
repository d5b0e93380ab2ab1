package dev.idemlab.lab.leases;

import dev.idemlab.idempotency.Fingerprint;
import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.StorePhase;
import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyRecord;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.Reservation;
import dev.idemlab.idempotency.store.postgres.PostgresIdempotencyStore;
import dev.idemlab.idempotency.store.postgres.PostgresStoreConfig;
import dev.idemlab.idempotency.store.redis.RedisIdempotencyStore;
import dev.idemlab.idempotency.store.redis.RedisStoreConfig;
import dev.idemlab.lab.faults.TcpProxy;
import dev.idemlab.lab.infra.PostgresBackend;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.RedisBackend;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.infra.StoreBackends;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.ProviderObserver;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.net.InetAddress;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A WAIT caller that has seen the live holder, then loses its store for about a second, keeps
 * waiting and replays the holder's charge: by {@code call} and by {@code callAsync} alike (the async
 * waiter once re-reserved at its first safety poll, failed open on the dead store and charged twice).
 * The waiter's store client connects through a NetCrusher TCP proxy that the test closes, every
 * connection with it, so its reads are refused (and its circuit opens); the holder, on another client
 * connected straight to the server, completes meanwhile. The verdict is the provider's ledger.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WaitersOutlastAStoreOutageTest {

    private static final ResultCodec<Charge> CHARGE = ResultCodec.json(Charge.class);
    private static final Duration OUTAGE = Duration.ofSeconds(1);

    private final Map<String, StoreBackend> backends = new LinkedHashMap<>();
    private final ExecutorService callers = Executors.newCachedThreadPool();
    private CountDownLatch holderGate;
    private Semaphore insideProvider;
    private FakePaymentProvider provider;

    /** A provider whose first call, the holder's, waits at the gate; later calls charge at once. */
    @BeforeEach
    void closeGate() {
        holderGate = new CountDownLatch(1);
        insideProvider = new Semaphore(0);
        provider = FakePaymentProvider.builder()
                .latency(call -> {
                    if (call == 1) {
                        holderGate.await(30, TimeUnit.SECONDS);
                    }
                })
                .observer(new ProviderObserver() {
                    @Override
                    public void callStarted(int callNumber, String orderId, long amount) {
                        insideProvider.release();
                    }
                })
                .build();
    }

    @BeforeAll
    void startServers() {
        for (String name : new String[] {"redis", "postgres"}) {
            backends.put(name, StoreBackends.open(name, ProvisioningOptions.defaults()));
        }
    }

    @AfterAll
    void stopServers() {
        callers.shutdownNow();
        backends.values().forEach(StoreBackend::close);
    }

    @AfterEach
    void openGate() {
        holderGate.countDown();
    }

    @ParameterizedTest(name = "{0} by {1}")
    @CsvSource({"redis, call", "redis, callAsync", "postgres, call", "postgres, callAsync"})
    void aWaiterThatSawTheHolderOutlastsAStoreOutageAndReplaysItsCharge(String store, String mode) throws Exception {
        StoreBackend backend = backends.get(store);
        String prefix = "outage-" + UUID.randomUUID() + ":";
        try (TcpProxy proxy = TcpProxy.to(serverAddress(backend));
             IdempotencyStore direct = openStore(backend, null, prefix);
             WatchedStore throughProxy = new WatchedStore(openStore(backend, proxy.port(), prefix))) {
            IdempotencyCoordinator holderSide = IdempotencyCoordinator.builder(direct).build();
            IdempotencyCoordinator waiterSide = IdempotencyCoordinator.builder(throughProxy)
                    .config(IdempotencyConfig.custom().waitTimeout(Duration.ofSeconds(20)).build()).build();
            IdempotentCall call = IdempotentCall.of("payment.charge", UUID.randomUUID().toString(),
                    Fingerprint.ofFields(Map.of("order_id", "o-1", "amount", 10)));

            CompletableFuture<IdempotentResult<Charge>> holder = CompletableFuture.supplyAsync(() ->
                    holderSide.call(call, CHARGE, () -> provider.charge("o-1", 10, null)), callers);
            assertThat(insideProvider.tryAcquire(30, TimeUnit.SECONDS)).as("the holder is charging").isTrue();
            CompletableFuture<IdempotentResult<Charge>> waiter = "call".equals(mode)
                    ? CompletableFuture.supplyAsync(() -> waiterSide.call(call, CHARGE,
                            () -> provider.charge("o-1", 10, null)), callers)
                    : waiterSide.callAsync(call, CHARGE, context -> provider.charge("o-1", 10, null), callers)
                            .toCompletableFuture();
            throughProxy.awaitTheHolderSeen();

            proxy.disconnect(); // every connection of the waiter's client is cut, and new ones are refused
            // The outage has reached the waiter (a read, or the reserve of a waiter that gave up its wait).
            await().atMost(Duration.ofSeconds(30)).until(() -> waiterSide.stats().totalStorageErrors() >= 1);
            letTimePass(OUTAGE);
            holderGate.countDown(); // the holder completes while the waiter's store is still unreachable
            IdempotentResult<Charge> held = holder.get(30, TimeUnit.SECONDS);
            proxy.reconnect();

            IdempotentResult<Charge> waited = waiter.get(30, TimeUnit.SECONDS);
            assertThat(held.outcome()).isEqualTo(Outcome.EXECUTED);
            assertThat(provider.chargeIds()).containsExactly("ch_1");
            assertThat(waited.value().id()).isEqualTo("ch_1");
            assertThat(waited.outcome()).isEqualTo(Outcome.WAITED);
            assertThat(waiterSide.stats().count(Outcome.FAILED_OPEN)).isZero();
            assertThat(waiterSide.stats().storageErrors().get(StorePhase.LOOKUP)).isGreaterThanOrEqualTo(2);
        }
    }

    /** Where the backend's server listens, as host and port. */
    private static URI serverAddress(StoreBackend backend) {
        String url = backend instanceof RedisBackend redis ? redis.uri()
                : ((PostgresBackend) backend).jdbcUrl().substring("jdbc:".length());
        return URI.create(url);
    }

    /** A client of the backend's server under {@code prefix}, straight or through the proxy on {@code port}. */
    private static IdempotencyStore openStore(StoreBackend backend, Integer port, String prefix) {
        URI server = serverAddress(backend);
        String hostPort = server.getHost() + ":" + server.getPort();
        String through = port == null ? hostPort : "127.0.0.1:" + port;
        if (backend instanceof RedisBackend redis) {
            return new RedisIdempotencyStore(RedisStoreConfig.custom().uri(redis.uri().replace(hostPort, through))
                    .keyPrefix(prefix).build());
        }
        PostgresBackend postgres = (PostgresBackend) backend;
        return new PostgresIdempotencyStore(PostgresStoreConfig.custom(postgres.jdbcUrl().replace(hostPort, through))
                .credentials(postgres.user(), postgres.password()).namespacePrefix(prefix).build());
    }

    /** Lets real time pass: the outage lasts this long whatever the test does meanwhile. */
    private static void letTimePass(Duration time) {
        long deadline = System.nanoTime() + time.toNanos();
        for (long left = time.toNanos(); left > 0; left = deadline - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }

    /**
     * The waiter's store client, telling the test when the waiter has seen the holder: its reserve
     * found the reservation and its first read in the wait (after it subscribed) was answered.
     */
    private static final class WatchedStore extends ForwardingIdempotencyStore {
        private final Semaphore foundHeld = new Semaphore(0);
        private final Semaphore answeredLookups = new Semaphore(0);

        WatchedStore(IdempotencyStore delegate) {
            super(delegate);
        }

        @Override
        public Reservation reserve(String namespace, String token, String fingerprint, Duration lease) {
            Reservation answer = super.reserve(namespace, token, fingerprint, lease);
            if (answer instanceof Reservation.Found) {
                foundHeld.release();
            }
            return answer;
        }

        @Override
        public Optional<IdempotencyRecord> lookup(String namespace) {
            Optional<IdempotencyRecord> answer = super.lookup(namespace);
            answeredLookups.release();
            return answer;
        }

        void awaitTheHolderSeen() throws InterruptedException {
            assertThat(foundHeld.tryAcquire(30, TimeUnit.SECONDS)).as("the waiter found the key held").isTrue();
            assertThat(answeredLookups.tryAcquire(30, TimeUnit.SECONDS)).as("the waiter read in its wait").isTrue();
        }
    }
}
