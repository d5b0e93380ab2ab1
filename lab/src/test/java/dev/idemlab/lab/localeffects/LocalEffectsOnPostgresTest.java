package dev.idemlab.lab.localeffects;

import dev.idemlab.idempotency.Fingerprint;
import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyContext;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotencyFencedException;
import dev.idemlab.idempotency.IdempotencyInProgressException;
import dev.idemlab.idempotency.IdempotencyStoreUnavailableException;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.store.postgres.JdbcEffect;
import dev.idemlab.idempotency.store.postgres.LocalEffects;
import dev.idemlab.idempotency.store.postgres.PostgresIdempotencyStore;
import dev.idemlab.idempotency.store.postgres.PostgresStoreConfig;
import dev.idemlab.idempotency.store.postgres.Workflow;
import dev.idemlab.lab.infra.PostgresBackend;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.StoreBackends;
import dev.idemlab.lab.scenario.DroppedRenewals;
import dev.idemlab.provider.FakePaymentProvider;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 27 on a real PostgreSQL: a local effect (a row of an {@code orders} table in the store's own
 * database) commits with its idempotency record or not at all, a holder taken over commits nothing, and
 * a workflow resumes after its last recovery point. Every assertion reads what landed: the orders
 * table, the recovery points, the provider's ledger. Holders are paused on latches; the lease runs out
 * by the server's clock, which the test waits for with Awaitility, never by sleeping.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LocalEffectsOnPostgresTest {

    private static final Duration SHORT_LEASE = Duration.ofSeconds(1);
    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final ResultCodec<Long> ORDER_ID = ResultCodec.json(Long.class);
    private static final ResultCodec<Workflow.Progress> PROGRESS = ResultCodec.json(Workflow.Progress.class);

    private final String table = "local_effects_" + UUID.randomUUID().toString().substring(0, 8);
    private final String orders = table + "_orders";
    private final ExecutorService holders = Executors.newCachedThreadPool();
    private PostgresBackend postgres;
    private PostgresIdempotencyStore store;
    private LocalEffects local;
    private IdempotencyCoordinator coordinator;

    @BeforeAll
    void start() throws SQLException {
        postgres = (PostgresBackend) StoreBackends.open("postgres", ProvisioningOptions.defaults());
        store = new PostgresIdempotencyStore(PostgresStoreConfig.custom(postgres.jdbcUrl())
                .credentials(postgres.user(), postgres.password()).table(table).build());
        local = LocalEffects.of(store);
        coordinator = IdempotencyCoordinator.builder(store).build();
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            // No unique key on purpose: a stale holder's uncommitted row must not block the new holder's insert.
            statement.execute("CREATE TABLE " + orders + " (id bigserial PRIMARY KEY, idempotency_key text NOT NULL, "
                    + "placed_by text NOT NULL, paid boolean NOT NULL DEFAULT false, charge_id text)");
        }
    }

    @AfterAll
    void stop() throws SQLException {
        holders.shutdownNow();
        try {
            if (store != null) {
                try (Connection connection = connect(); Statement statement = connection.createStatement()) {
                    statement.execute("DROP TABLE IF EXISTS " + orders + ", " + table + "_steps, " + table);
                }
                store.close();
            }
        } finally {
            if (postgres != null) {
                postgres.close();
            }
        }
    }

    @Test
    void theOrderAndItsRecordCommitTogetherAndASecondCallReplays() throws Exception {
        String key = newKey();
        JdbcEffect<Long, SQLException> placeOrder = (connection, context) -> insertOrder(connection, key, "caller");

        IdempotentResult<Long> first = coordinator.call(orderCall(key), ORDER_ID, local.inTransaction(placeOrder));
        IdempotentResult<Long> second = coordinator.call(orderCall(key), ORDER_ID, local.inTransaction(placeOrder));

        assertThat(first.outcome()).isEqualTo(Outcome.EXECUTED);
        assertThat(second.outcome()).isEqualTo(Outcome.REPLAYED);
        assertThat(second.value()).isEqualTo(first.value());
        assertThat(ordersOf(key)).containsExactly("caller");
    }

    @Test
    void anEffectThatThrowsAfterInsertingKeepsNeitherOrderNorRecordAndTheRetryInsertsOnce() throws Exception {
        String key = newKey();
        IllegalStateException declined = new IllegalStateException("card declined after the order was written");

        assertThatThrownBy(() -> coordinator.execute(orderCall(key), ORDER_ID, local.inTransaction((connection, context) -> {
            insertOrder(connection, key, "first try");
            throw declined;
        }))).isSameAs(declined);
        assertThat(ordersOf(key)).isEmpty();
        assertThat(store.lookup(orderCall(key).namespace())).isEmpty();

        assertThat(coordinator.call(orderCall(key), ORDER_ID, local.inTransaction(
                (connection, context) -> insertOrder(connection, key, "retry"))).outcome()).isEqualTo(Outcome.EXECUTED);
        assertThat(ordersOf(key)).containsExactly("retry");
    }

    @Test
    void aHolderTakenOverWhileItsEffectRanCommitsNothingAndIsFenced() throws Exception {
        String key = newKey();
        IdempotencyCoordinator unrenewed = withDroppedRenewals();
        CountDownLatch inserted = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        Future<Long> stale = holders.submit(() -> unrenewed.execute(orderCall(key), ORDER_ID,
                local.inTransaction((connection, context) -> {
                    long id = insertOrder(connection, key, "stale holder");
                    inserted.countDown();
                    assertThat(resume.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
                    return id;
                })));
        assertThat(inserted.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        awaitLeaseRanOut(orderCall(key));

        IdempotentResult<Long> taken = coordinator.call(orderCall(key), ORDER_ID,
                local.inTransaction((connection, context) -> insertOrder(connection, key, "new holder")));
        assertThat(taken.outcome()).isEqualTo(Outcome.EXECUTED);
        resume.countDown();

        assertThatThrownBy(() -> stale.get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
                .hasCauseInstanceOf(IdempotencyFencedException.class);
        assertThat(ordersOf(key)).containsExactly("new holder");
        assertThat(unrenewed.stats().count(Outcome.LEASE_LOST)).isEqualTo(1);
        IdempotentResult<Long> replay = coordinator.call(orderCall(key), ORDER_ID,
                local.inTransaction((connection, context) -> insertOrder(connection, key, "late retry")));
        assertThat(replay.outcome()).isEqualTo(Outcome.REPLAYED);
        assertThat(replay.value()).isEqualTo(taken.value());
        assertThat(ordersOf(key)).containsExactly("new holder");
    }

    @Test
    void aCompletionWhoseConnectionDiedIsUnavailableKeepsNoOrderAndTheRetryInsertsOnce() throws Exception {
        String key = newKey();
        AtomicInteger backend = new AtomicInteger();
        CountDownLatch inserted = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        Future<Long> holder = holders.submit(() -> coordinator.execute(orderCall(key), ORDER_ID,
                local.inTransaction((connection, context) -> {
                    long id = insertOrder(connection, key, "holder whose connection dies");
                    backend.set(backendPid(connection));
                    inserted.countDown();
                    assertThat(resume.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
                    return id;
                })));
        assertThat(inserted.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        terminate(backend.get());
        resume.countDown();

        assertThatThrownBy(() -> holder.get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
                .cause().isInstanceOfSatisfying(IdempotencyStoreUnavailableException.class,
                        e -> assertThat(e.httpStatus()).isEqualTo(503));
        assertThat(ordersOf(key)).isEmpty();

        assertThat(coordinator.call(orderCall(key), ORDER_ID, local.inTransaction(
                (connection, context) -> insertOrder(connection, key, "retry"))).outcome()).isEqualTo(Outcome.EXECUTED);
        assertThat(ordersOf(key)).containsExactly("retry");
    }

    @Test
    void aWorkflowThatCrashedAfterTheChargeResumesAndChargesOnce() throws Exception {
        String key = newKey();
        OrderWorkflow order = new OrderWorkflow(key);
        order.crashAfterMarkingPaid.set(true);

        assertThatThrownBy(() -> coordinator.execute(orderCall(key), PROGRESS, local.workflow(order.workflow)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("crashed");
        assertThat(recoveryPointsOf(key)).isEqualTo(2);
        assertThat(order.provider.chargeCount()).isEqualTo(1);
        assertThat(paidOrders(key)).isEmpty();

        IdempotentResult<Workflow.Progress> resumed = coordinator.call(orderCall(key), PROGRESS,
                local.workflow(order.workflow));
        assertThat(resumed.outcome()).isEqualTo(Outcome.EXECUTED);
        assertThat(ordersOf(key)).hasSize(1);
        assertThat(order.provider.chargeIds()).containsExactly(resumed.value().output("charge_created"));
        assertThat(paidOrders(key)).containsExactly(resumed.value().output("charge_created"));
        assertThat(order.receipts).containsExactly(resumed.value().output("order_created"));
        assertThat(recoveryPointsOf(key)).isZero();

        IdempotentResult<Workflow.Progress> replay = coordinator.call(orderCall(key), PROGRESS,
                local.workflow(order.workflow));
        assertThat(replay.outcome()).isEqualTo(Outcome.REPLAYED);
        assertThat(replay.value()).isEqualTo(resumed.value());
        assertThat(order.provider.chargeCount()).isEqualTo(1);
        assertThat(order.receipts).hasSize(1);
    }

    @Test
    void aWorkflowHolderTakenOverInItsRemoteStepIsFencedAndRecordsNothingMore() throws Exception {
        String key = newKey();
        OrderWorkflow order = new OrderWorkflow(key);
        CountDownLatch charging = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        AtomicBoolean firstCharge = new AtomicBoolean(true);
        order.beforeCharging = () -> {
            if (firstCharge.getAndSet(false)) {
                charging.countDown();
                assertThat(resume.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
            }
        };
        IdempotencyCoordinator unrenewed = withDroppedRenewals();
        Future<Workflow.Progress> stale = holders.submit(() -> unrenewed.execute(orderCall(key), PROGRESS,
                local.workflow(order.workflow)));
        assertThat(charging.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        awaitLeaseRanOut(orderCall(key));

        IdempotentResult<Workflow.Progress> taken = coordinator.call(orderCall(key), PROGRESS,
                local.workflow(order.workflow));
        assertThat(taken.outcome()).isEqualTo(Outcome.EXECUTED);
        resume.countDown();

        assertThatThrownBy(() -> stale.get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
                .hasCauseInstanceOf(IdempotencyFencedException.class);
        assertThat(ordersOf(key)).as("the new holder resumed after the stale one's order_created").hasSize(1);
        assertThat(order.provider.callCount()).as("the stale holder called out once it woke").isEqualTo(2);
        assertThat(order.provider.chargeIds()).as("on the step's downstream key: deduplicated")
                .containsExactly(taken.value().output("charge_created"));
        assertThat(paidOrders(key)).containsExactly(taken.value().output("charge_created"));
        assertThat(order.receipts).hasSize(1);
        assertThat(recoveryPointsOf(key)).isZero();
        assertThat(coordinator.call(orderCall(key), PROGRESS, local.workflow(order.workflow)).value())
                .isEqualTo(taken.value());
    }

    @Test
    void aWorkflowHolderTakenOverInsideALocalStepHasThatStepRolledBackAndIsFenced() throws Exception {
        String key = newKey();
        CountDownLatch inStep = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        AtomicBoolean firstRun = new AtomicBoolean(true);
        Workflow placeOrder = Workflow.builder().local("order_created", (connection, progress, context) -> {
            boolean stale = firstRun.getAndSet(false);
            long id = insertOrder(connection, key, stale ? "stale holder" : "new holder");
            if (stale) {
                inStep.countDown();
                assertThat(resume.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
            }
            return Long.toString(id);
        }).build();
        IdempotencyCoordinator unrenewed = withDroppedRenewals();
        Future<Workflow.Progress> stale = holders.submit(() -> unrenewed.execute(orderCall(key), PROGRESS,
                local.workflow(placeOrder)));
        assertThat(inStep.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        awaitLeaseRanOut(orderCall(key));

        assertThat(coordinator.call(orderCall(key), PROGRESS, local.workflow(placeOrder)).outcome())
                .isEqualTo(Outcome.EXECUTED);
        resume.countDown();

        assertThatThrownBy(() -> stale.get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
                .hasCauseInstanceOf(IdempotencyFencedException.class);
        assertThat(ordersOf(key)).containsExactly("new holder");
        assertThat(recoveryPointsOf(key)).isZero();
    }

    /**
     * Regression: a local step's fence check locked the reservation's row for the whole step, so the
     * holder's own renewals (updates of that row) queued behind it, and a live holder in a step longer
     * than its lease lost the key by the server's clock. Five renewals that land while the step is
     * paused reach past the first lease and four more renewal intervals beyond the reserve.
     */
    @Test
    void aLiveHolderKeepsRenewingItsLeaseWhileALocalStepOfItsWorkflowRuns() throws Exception {
        String key = newKey();
        Semaphore renewalsLanded = new Semaphore(0);
        IdempotencyCoordinator renewed = IdempotencyCoordinator.builder(new ForwardingIdempotencyStore(store) {
            @Override
            public boolean renew(String namespace, String token, Duration lease) {
                boolean landed = super.renew(namespace, token, lease);
                if (landed) {
                    renewalsLanded.release();
                }
                return landed;
            }
        }).config(IdempotencyConfig.custom().lease(SHORT_LEASE).policy(InFlightPolicy.RAISE).build()).build();
        CountDownLatch inStep = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        Workflow slowStep = Workflow.builder().local("order_created", (connection, progress, context) -> {
            long id = insertOrder(connection, key, "slow step");
            inStep.countDown();
            assertThat(resume.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
            return Long.toString(id);
        }).build();
        Future<Workflow.Progress> holder = holders.submit(() -> renewed.execute(orderCall(key), PROGRESS,
                local.workflow(slowStep)));
        try {
            assertThat(inStep.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
            renewalsLanded.drainPermits();
            assertThat(renewalsLanded.tryAcquire(5, PATIENCE.toSeconds(), TimeUnit.SECONDS))
                    .as("the holder's renewals land while its step runs").isTrue();
            assertThatThrownBy(() -> renewed.execute(orderCall(key), PROGRESS, local.workflow(slowStep)))
                    .as("a retry finds the key still held, not free to take over")
                    .isInstanceOf(IdempotencyInProgressException.class);
        } finally {
            resume.countDown();
        }

        assertThat(holder.get(PATIENCE.toSeconds(), TimeUnit.SECONDS).finished("order_created")).isTrue();
        assertThat(ordersOf(key)).containsExactly("slow step");
        assertThat(renewed.stats().count(Outcome.EXECUTED)).isEqualTo(1);
    }

    /**
     * The example: create the order (local), charge it (remote), mark it paid (local), send the
     * receipt (remote). Each piece a test may change is a field.
     */
    private final class OrderWorkflow {
        final FakePaymentProvider provider = FakePaymentProvider.builder().latency(Duration.ZERO)
                .deduplicateOnKey(true).build();
        final List<String> receipts = new CopyOnWriteArrayList<>();
        final AtomicBoolean crashAfterMarkingPaid = new AtomicBoolean();
        volatile Interruptible beforeCharging = () -> { };
        final Workflow workflow;

        OrderWorkflow(String key) {
            workflow = Workflow.builder()
                    .local("order_created", (connection, progress, context) ->
                            Long.toString(insertOrder(connection, key, "workflow")))
                    .remote("charge_created", (progress, downstreamKey, context) -> {
                        beforeCharging.run();
                        return provider.charge(progress.output("order_created"), 1_000, downstreamKey).id();
                    })
                    .local("order_paid", (connection, progress, context) -> {
                        markPaid(connection, progress.output("order_created"), progress.output("charge_created"));
                        if (crashAfterMarkingPaid.getAndSet(false)) {
                            throw new IllegalStateException("the holder crashed after marking the order paid");
                        }
                        return "paid";
                    })
                    .remote("receipt_sent", (progress, downstreamKey, context) -> {
                        receipts.add(progress.output("order_created"));
                        return "receipt-" + receipts.size();
                    })
                    .build();
        }
    }

    @FunctionalInterface
    private interface Interruptible {
        void run() throws InterruptedException;
    }

    private IdempotencyCoordinator withDroppedRenewals() {
        return IdempotencyCoordinator.builder(new DroppedRenewals(store))
                .config(IdempotencyConfig.custom().lease(SHORT_LEASE).build()).build();
    }

    /** Waits until the server's clock says the reservation's lease is over (an expired row reads as absent). */
    private void awaitLeaseRanOut(IdempotentCall call) {
        Awaitility.await("the lease runs out by the server's clock").atMost(PATIENCE)
                .pollInterval(Duration.ofMillis(50)).until(() -> store.lookup(call.namespace()).isEmpty());
    }

    private static IdempotentCall orderCall(String key) {
        return IdempotentCall.of("order.create", key, Fingerprint.ofFields(Map.of("sku", "book", "quantity", 1)));
    }

    private static String newKey() {
        return "order-" + UUID.randomUUID();
    }

    private long insertOrder(Connection connection, String key, String placedBy) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO " + orders + " (idempotency_key, placed_by) VALUES (?, ?) RETURNING id")) {
            insert.setString(1, key);
            insert.setString(2, placedBy);
            try (ResultSet row = insert.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }

    private void markPaid(Connection connection, String orderId, String chargeId) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(
                "UPDATE " + orders + " SET paid = true, charge_id = ? WHERE id = ?")) {
            update.setString(1, chargeId);
            update.setLong(2, Long.parseLong(orderId));
            assertThat(update.executeUpdate()).isEqualTo(1);
        }
    }

    /** Who placed each committed order of {@code key}. */
    private List<String> ordersOf(String key) throws SQLException {
        return strings("SELECT placed_by FROM " + orders + " WHERE idempotency_key = ? ORDER BY id", key);
    }

    /** The charge of each committed order of {@code key} that is marked paid. */
    private List<String> paidOrders(String key) throws SQLException {
        return strings("SELECT charge_id FROM " + orders + " WHERE idempotency_key = ? AND paid ORDER BY id", key);
    }

    private int recoveryPointsOf(String key) throws SQLException {
        return strings("SELECT phase FROM " + table + "_steps WHERE namespace = ?",
                store.keyOf(orderCall(key).namespace())).size();
    }

    private List<String> strings(String query, String parameter) throws SQLException {
        try (Connection connection = connect(); PreparedStatement statement = connection.prepareStatement(query)) {
            statement.setString(1, parameter);
            List<String> values = new ArrayList<>();
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    values.add(rows.getString(1));
                }
            }
            return values;
        }
    }

    private static int backendPid(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT pg_backend_pid()")) {
            row.next();
            return row.getInt(1);
        }
    }

    /** Ends the server process behind a connection, as a crash or a failover would, and waits until it is gone. */
    private void terminate(int pid) throws SQLException {
        try (Connection connection = connect();
             PreparedStatement kill = connection.prepareStatement("SELECT pg_terminate_backend(?)")) {
            kill.setInt(1, pid);
            try (ResultSet row = kill.executeQuery()) {
                row.next();
                assertThat(row.getBoolean(1)).isTrue();
            }
        }
        Awaitility.await("the terminated backend is gone").atMost(PATIENCE).pollInterval(Duration.ofMillis(50))
                .until(() -> strings("SELECT pid::text FROM pg_stat_activity WHERE pid = ?::int", Integer.toString(pid))
                        .isEmpty());
    }

    private Connection connect() throws SQLException {
        Properties credentials = new Properties();
        if (postgres.user() != null) {
            credentials.setProperty("user", postgres.user());
        }
        if (postgres.password() != null) {
            credentials.setProperty("password", postgres.password());
        }
        return DriverManager.getConnection(postgres.jdbcUrl(), credentials);
    }
}
