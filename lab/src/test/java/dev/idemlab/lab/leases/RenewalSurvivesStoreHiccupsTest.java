package dev.idemlab.lab.leases;

import dev.idemlab.idempotency.Fingerprint;
import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotencyInProgressException;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.StorePhase;
import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.store.postgres.PostgresIdempotencyStore;
import dev.idemlab.lab.faults.TcpProxy;
import dev.idemlab.lab.infra.PostgresBackend;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.RedisBackend;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.infra.StoreBackends;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.ProviderObserver;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 24: a renewal that fails is not a lost lease. The holder's action is parked inside the
 * provider past two leases while a real fault hits the store as its first renewal goes out: Redis
 * paused with {@code CLIENT PAUSE 1500 ALL} (longer than the 1 s command timeout), every Redis client
 * connection killed with {@code CLIENT KILL TYPE normal} (which opens the store's circuit), or the
 * PostgreSQL table held with {@code LOCK TABLE ... IN ACCESS EXCLUSIVE MODE} for 1.5 s (longer than
 * the 1 s lock timeout). The renewal fails, is counted, and the next one gets through; a retry after
 * the first lease would have run out is turned away (409), never run; the ledger is one charge.
 *
 * <p>The store wrapper only chooses the moment, the first renewal, and records what it threw; the
 * fault itself is the server's. Real time passes by parking (expiry is the store's clock); nothing
 * asserts how long anything took.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RenewalSurvivesStoreHiccupsTest {

    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final Duration BEAT = Duration.ofSeconds(1);
    private static final ResultCodec<Charge> CHARGE = ResultCodec.json(Charge.class);

    private RedisBackend redis;
    private PostgresBackend postgres;
    private final ExecutorService callers = Executors.newCachedThreadPool();
    private CountDownLatch holderGate;
    private Semaphore insideProvider;
    private FakePaymentProvider provider;

    @BeforeAll
    void startServers() {
        redis = (RedisBackend) StoreBackends.open("redis", ProvisioningOptions.defaults());
        postgres = (PostgresBackend) StoreBackends.open("postgres", ProvisioningOptions.defaults());
    }

    @AfterAll
    void stopServers() {
        callers.shutdownNow();
        for (StoreBackend backend : new StoreBackend[] {redis, postgres}) {
            if (backend != null) {
                backend.close();
            }
        }
    }

    @BeforeEach
    void closeGates() {
        holderGate = new CountDownLatch(1);
        insideProvider = new Semaphore(0);
        provider = FakePaymentProvider.builder()
                .latency(call -> {
                    if (call == 1) {
                        holderGate.await(60, TimeUnit.SECONDS);
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

    @AfterEach
    void openGates() {
        holderGate.countDown();
    }

    /** A fault the test injects on the server, once, as the holder's first renewal goes out. */
    @FunctionalInterface
    private interface Fault {
        void inject(IdempotencyStore store) throws Exception;
    }

    /**
     * The real store, whose first renewal injects {@code fault} just before it goes out; every
     * renewal's storage error is recorded, and passed on unchanged.
     */
    private static final class FaultAtFirstRenewal extends ForwardingIdempotencyStore {
        final List<IdempotencyStoreException.Failure> renewFailures = new CopyOnWriteArrayList<>();
        private final AtomicBoolean injected = new AtomicBoolean();
        private final Fault fault;

        FaultAtFirstRenewal(IdempotencyStore delegate, Fault fault) {
            super(delegate);
            this.fault = fault;
        }

        @Override
        public boolean renew(String namespace, String token, Duration lease) {
            if (injected.compareAndSet(false, true)) {
                try {
                    fault.inject(delegate());
                } catch (Exception e) {
                    throw new IllegalStateException("the fault could not be injected", e);
                }
            }
            try {
                return super.renew(namespace, token, lease);
            } catch (IdempotencyStoreException e) {
                renewFailures.add(e.failure());
                throw e;
            }
        }
    }

    @Test
    void redisPausedPastTheCommandTimeoutAtTheFirstRenewal() throws Exception {
        try (RawRedis raw = new RawRedis(redis.uri())) {
            survives(redis, BEAT, store -> raw.connection.sync().dispatch(CommandType.CLIENT,
                    new StatusOutput<>(StringCodec.UTF8), new CommandArgs<>(StringCodec.UTF8).add("PAUSE").add(1500).add("ALL")));
        }
    }

    @Test
    void redisConnectionsKilledAtTheFirstRenewal() throws Exception {
        // The kill opens the store's circuit for its 1 s cool-down, so the beat after the failed one may
        // find it still open: at a beat of 1 s, the third beat would come as a 3 s lease ends. A beat of
        // 750 ms leaves the third inside the lease (see IdempotencyConfig.heartbeatInterval).
        try (RawRedis raw = new RawRedis(redis.uri())) {
            survives(redis, Duration.ofMillis(750), store -> raw.connection.sync().clientKill(KillArgs.Builder.typeNormal()));
        }
    }

    @Test
    void postgresTableLockedPastTheLockTimeoutAtTheFirstRenewal() throws Exception {
        try (Connection locker = DriverManager.getConnection(postgres.jdbcUrl(), postgres.user(), postgres.password())) {
            locker.setAutoCommit(false);
            CountDownLatch unlocked = new CountDownLatch(1);
            survives(postgres, BEAT, store -> {
                try (Statement statement = locker.createStatement()) {
                    statement.execute("LOCK TABLE " + ((PostgresIdempotencyStore) store).config().table()
                            + " IN ACCESS EXCLUSIVE MODE");
                }
                callers.execute(() -> {
                    letTimePass(Duration.ofMillis(1500)); // the lock is held 1.5 s, then let go
                    try {
                        locker.rollback();
                    } catch (java.sql.SQLException e) {
                        throw new IllegalStateException(e);
                    } finally {
                        unlocked.countDown();
                    }
                });
            });
            assertThat(unlocked.await(30, TimeUnit.SECONDS)).isTrue();
        }
    }

    /**
     * Renewals reach Redis but their replies are lost for longer than a lease: the holder's own clock
     * runs out (its outcome says the lease was lost), while each renewal that landed kept the lease
     * alive in the store. A holder that stopped renewing then let the store's lease end after the fault
     * with its action still running, and a retry ran the action again (found by the nemesis on Redis).
     * It renews on until the store says the token no longer holds: the retry is turned away, the
     * holder's complete lands, one charge.
     */
    @Test
    void renewalsWhoseRepliesAreLostPastTheLeaseStillKeepTheKey() throws Exception {
        try (TcpProxy proxy = TcpProxy.to(URI.create(redis.uri()));
             IdempotencyStore real = redis.openStoreThrough(proxy.port())) {
            CountDownLatch repliesBack = new CountDownLatch(1);
            FaultAtFirstRenewal store = new FaultAtFirstRenewal(real, unused -> {
                proxy.dropReplies(true);
                callers.execute(() -> {
                    letTimePass(LEASE.plusSeconds(1)); // past the lease by the holder's clock
                    proxy.stopDroppingReplies();
                    repliesBack.countDown();
                });
            });
            IdempotencyCoordinator coordinator = raising(store, BEAT);
            String key = UUID.randomUUID().toString();
            CompletableFuture<IdempotentResult<Charge>> holder = holdInsideTheProvider(coordinator, key);
            assertThat(repliesBack.await(30, TimeUnit.SECONDS)).isTrue();
            assertThat(store.renewFailures).as("renewals timed out while their replies were lost")
                    .contains(IdempotencyStoreException.Failure.TIMEOUT);

            letTimePass(LEASE.plusMillis(500)); // a lease after the fault: the store's lease had ended without renewals
            assertThatThrownBy(() -> charge(coordinator, key).join())
                    .hasCauseInstanceOf(IdempotencyInProgressException.class);
            holderGate.countDown();

            IdempotentResult<Charge> held = holder.get(30, TimeUnit.SECONDS);
            assertThat(held.outcome()).as("its own clock ran out: it cannot know nobody took over")
                    .isEqualTo(Outcome.LEASE_LOST);
            assertThat(held.value().id()).isEqualTo("ch_1");
            retryReplaysTheOneCharge(coordinator, key);
            assertThat(coordinator.stats().stale()).isZero();
        }
    }

    /**
     * Every connection of the store's request pool is taken, past a lease, by reserves that wait on a
     * row lock (another transaction holds an expired row for update, and each reserve that would take
     * it over waits out the lock timeout, then the next one takes its connection). The holder's
     * renewals of another row go through the renewals' own pool: the lease holds, a
     * retry after the flood is turned away, one charge. On one shared pool the renewals queued
     * behind the flood (found by the nemesis as a pool reopening after a fault).
     */
    @Test
    void postgresRequestPoolTakenPastTheLeaseByReservesWaitingOnALock() throws Exception {
        try (IdempotencyStore real = postgres.openStore();
             Connection locker = DriverManager.getConnection(postgres.jdbcUrl(), postgres.user(), postgres.password())) {
            PostgresIdempotencyStore pg = (PostgresIdempotencyStore) real;
            String blocked = "payment.charge:blocked-" + UUID.randomUUID();
            assertThat(real.reserve(blocked, "t0", "fp", Duration.ofMillis(1)))
                    .isInstanceOf(dev.idemlab.idempotency.spi.Reservation.Acquired.class);
            letTimePass(Duration.ofMillis(50)); // the row has expired: a reserve would take it over
            locker.setAutoCommit(false);
            try (var lock = locker.prepareStatement("SELECT 1 FROM " + pg.config().table()
                    + " WHERE namespace = ? FOR UPDATE")) {
                lock.setString(1, pg.keyOf(blocked));
                assertThat(lock.executeQuery().next()).as("the expired row is locked").isTrue();
            }
            int flooders = pg.config().maxPoolSize() * 4;
            CountDownLatch floodEnds = new CountDownLatch(flooders);
            FaultAtFirstRenewal store = new FaultAtFirstRenewal(real, unused -> {
                long until = System.nanoTime() + LEASE.plusSeconds(1).toNanos();
                for (int i = 0; i < flooders; i++) {
                    callers.execute(() -> {
                        try {
                            while (System.nanoTime() - until < 0) {
                                try {
                                    real.reserve(blocked, UUID.randomUUID().toString(), "fp", LEASE);
                                } catch (IdempotencyStoreException expected) {
                                    // lock timeout, or no connection within the pool timeout: try again
                                }
                            }
                        } finally {
                            floodEnds.countDown();
                        }
                    });
                }
            });
            IdempotencyCoordinator coordinator = raising(store, BEAT);
            String key = UUID.randomUUID().toString();
            CompletableFuture<IdempotentResult<Charge>> holder = holdInsideTheProvider(coordinator, key);
            assertThat(floodEnds.await(60, TimeUnit.SECONDS)).as("the flood ran past a lease and ended").isTrue();
            locker.rollback();

            assertThatThrownBy(() -> charge(coordinator, key).join())
                    .hasCauseInstanceOf(IdempotencyInProgressException.class);
            holderGate.countDown();

            IdempotentResult<Charge> held = holder.get(30, TimeUnit.SECONDS);
            assertThat(held.outcome()).isEqualTo(Outcome.EXECUTED);
            retryReplaysTheOneCharge(coordinator, key);
        }
    }

    /** A plain Lettuce connection to the Redis behind the store, to send the fault's command on. */
    private static final class RawRedis implements AutoCloseable {
        final RedisClient client;
        final StatefulRedisConnection<String, String> connection;

        RawRedis(String uri) {
            client = RedisClient.create(uri);
            connection = client.connect();
        }

        @Override
        public void close() {
            connection.close();
            client.shutdown();
        }
    }

    private void survives(StoreBackend backend, Duration beat, Fault fault) throws Exception {
        try (IdempotencyStore real = backend.openStore()) {
            FaultAtFirstRenewal store = new FaultAtFirstRenewal(real, fault);
            IdempotencyCoordinator coordinator = raising(store, beat);
            String key = UUID.randomUUID().toString();
            CompletableFuture<IdempotentResult<Charge>> holder = holdInsideTheProvider(coordinator, key);

            letTimePass(LEASE.plusMillis(500)); // the first lease would have run out by now
            assertThat(store.renewFailures).as("the fault made a renewal fail").isNotEmpty();
            assertThatThrownBy(() -> charge(coordinator, key).join())
                    .hasCauseInstanceOf(IdempotencyInProgressException.class);
            letTimePass(LEASE); // parked past two leases in all
            assertThatThrownBy(() -> charge(coordinator, key).join())
                    .hasCauseInstanceOf(IdempotencyInProgressException.class);
            holderGate.countDown();

            IdempotentResult<Charge> held = holder.get(30, TimeUnit.SECONDS);
            assertThat(held.outcome()).isEqualTo(Outcome.EXECUTED);
            assertThat(held.value().id()).isEqualTo("ch_1");
            retryReplaysTheOneCharge(coordinator, key);
            assertThat(coordinator.stats().storageErrors().get(StorePhase.RENEW))
                    .as("each failed renewal counted").isEqualTo(store.renewFailures.size());
            assertThat(coordinator.stats().count(Outcome.LEASE_LOST)).isZero();
            assertThat(coordinator.stats().stale()).isZero();
        }
    }

    /** A coordinator under RAISE with the test's lease, renewing every {@code beat}. */
    private static IdempotencyCoordinator raising(IdempotencyStore store, Duration beat) {
        return IdempotencyCoordinator.builder(store)
                .config(IdempotencyConfig.custom().policy(InFlightPolicy.RAISE).lease(LEASE).heartbeatInterval(beat)
                        .build())
                .build();
    }

    /** Starts the holder's call on {@code key} and returns once its action is parked inside the provider. */
    private CompletableFuture<IdempotentResult<Charge>> holdInsideTheProvider(IdempotencyCoordinator coordinator,
                                                                             String key) throws InterruptedException {
        CompletableFuture<IdempotentResult<Charge>> holder = charge(coordinator, key);
        assertThat(insideProvider.tryAcquire(30, TimeUnit.SECONDS)).as("the holder is inside the provider").isTrue();
        return holder;
    }

    /** A retry once the holder is done replays its charge, and the ledger holds that one charge. */
    private void retryReplaysTheOneCharge(IdempotencyCoordinator coordinator, String key) throws Exception {
        IdempotentResult<Charge> retry = charge(coordinator, key).get(30, TimeUnit.SECONDS);
        assertThat(retry.outcome()).isEqualTo(Outcome.REPLAYED);
        assertThat(retry.value().id()).isEqualTo("ch_1");
        assertThat(provider.chargeIds()).containsExactly("ch_1");
    }

    private static IdempotentCall call(String key) {
        return IdempotentCall.of("payment.charge", key, Fingerprint.ofFields(Map.of("order_id", "o-1", "amount", 10)));
    }

    private CompletableFuture<IdempotentResult<Charge>> charge(IdempotencyCoordinator coordinator, String key) {
        return CompletableFuture.supplyAsync(() -> coordinator.call(call(key), CHARGE,
                () -> provider.charge("o-1", 10, null)), callers);
    }

    /** Lets real time pass: the stores decide expiry by their own clocks. */
    private static void letTimePass(Duration time) {
        long deadline = System.nanoTime() + time.toNanos();
        for (long left = time.toNanos(); left > 0; left = deadline - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }
}
