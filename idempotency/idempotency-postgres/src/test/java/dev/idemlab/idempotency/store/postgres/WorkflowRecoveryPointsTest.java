package dev.idemlab.idempotency.store.postgres;

import dev.idemlab.idempotency.Fingerprint;
import dev.idemlab.idempotency.IdempotencyContext;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.testsupport.TestPostgres;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.ProviderTimeoutException;
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
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

/**
 * Issue 39: a workflow's recovery points belong to one request, its key and its fingerprint. Request 1
 * (sku A x1, 100) writes its order and fails at its charge, which releases the key; request 2 with the
 * same key and another body (sku B x5, 500) used to resume request 1's {@code order_created}, charge 500
 * against request 1's order and store request 1's order id as its own result. Every assertion reads
 * what landed: the orders table, the recovery points and the provider's ledger.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WorkflowRecoveryPointsTest {

    private static final ResultCodec<Workflow.Progress> PROGRESS = ResultCodec.json(Workflow.Progress.class);
    private static final OrderRequest ONE_A = new OrderRequest("A", 1, 100);
    private static final OrderRequest FIVE_B = new OrderRequest("B", 5, 500);

    private final String orders = "orders_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
    private TestPostgres server;
    private PostgresIdempotencyStore store;
    private LocalEffects local;
    private IdempotencyCoordinator coordinator;

    @BeforeAll
    void start() throws SQLException {
        server = TestPostgres.provide();
        store = PostgresTable.openStore(server);
        local = LocalEffects.of(store);
        coordinator = IdempotencyCoordinator.builder(store).build();
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE " + orders + " (id bigserial PRIMARY KEY, idempotency_key text NOT NULL, "
                    + "sku text NOT NULL, quantity integer NOT NULL)");
        }
    }

    @AfterAll
    void stop() {
        if (store != null) {
            store.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aRequestWithAnotherBodyOnAReleasedKeyWritesItsOwnOrderInsteadOfResumingTheFailedRequests()
            throws Exception {
        String key = newKey();
        Shop shop = new Shop(key);
        shop.provider.failNextCalls(1);
        assertThatThrownBy(() -> shop.place(ONE_A)).isInstanceOf(ProviderTimeoutException.class);
        assertThat(ordersOf(key)).containsExactly("A x1");

        IdempotentResult<Workflow.Progress> second = shop.place(FIVE_B);

        assertThat(second.outcome()).isEqualTo(Outcome.EXECUTED);
        assertThat(ordersOf(key)).as("request 2 wrote its own order").containsExactly("A x1", "B x5");
        String orderOfB = orderIdOf(key, "B");
        assertThat(second.value().output("order_created")).as("request 2's result names its own order")
                .isEqualTo(orderOfB).isNotEqualTo(orderIdOf(key, "A"));
        assertThat(shop.provider.ledger()).as("one charge, 500 against B's order")
                .extracting(Charge::id, Charge::orderId, Charge::amount)
                .containsExactly(tuple(second.value().output("charge_created"),
                        orderOfB, 500L));
        assertThat(recoveryPointsOf(key)).isEmpty();
        assertThat(shop.place(FIVE_B).value()).isEqualTo(second.value());
        assertThat(shop.provider.chargeCount()).isEqualTo(1);
    }

    @Test
    void eachLocalStepRunsInTheTransactionItsStepTransactionsGiveItAndNoOtherStepDoes() throws Exception {
        String key = newKey();
        List<String> given = new ArrayList<>();
        StepTransactions onPool = WorkflowRun.onPool(store);
        StepTransactions recorded = new StepTransactions() {
            @Override
            public <T> T inTransaction(String phase, Work<T> work) throws Exception {
                given.add(phase);
                return onPool.inTransaction(phase, work);
            }
        };
        Workflow workflow = Workflow.builder()
                .local("order_created", (connection, progress, context) -> {
                    try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + orders
                            + " (idempotency_key, sku, quantity) VALUES (?, 'C', 1)")) {
                        insert.setString(1, key);
                        insert.executeUpdate();
                    }
                    return "created";
                })
                .remote("charge_created", (progress, downstreamKey, context) -> "ch_given")
                .local("order_paid", (connection, progress, context) -> "paid")
                .build();

        Workflow.Progress progress = coordinator.execute(IdempotentCall.of("order.given", key,
                Fingerprint.ofFields(Map.of("sku", "C"))), PROGRESS, local.workflow(workflow, recorded));

        assertThat(given).as("the local steps' transactions, in order").containsExactly("order_created", "order_paid");
        assertThat(progress.outputs()).containsOnlyKeys("order_created", "charge_created", "order_paid");
        assertThat(ordersOf(key)).containsExactly("C x1");
    }

    @Test
    void theSameRequestRetriedAfterItsChargeFailedResumesAfterItsOrderAndIsChargedOnce() throws Exception {
        String key = newKey();
        Shop shop = new Shop(key);
        shop.provider.chargeThenTimeOutNextCalls(1);
        assertThatThrownBy(() -> shop.place(ONE_A)).isInstanceOf(ProviderTimeoutException.class);
        assertThat(shop.provider.chargeCount()).as("the charge landed, its answer was lost").isEqualTo(1);

        IdempotentResult<Workflow.Progress> retried = shop.place(ONE_A);

        assertThat(retried.outcome()).isEqualTo(Outcome.EXECUTED);
        assertThat(ordersOf(key)).as("resumed after order_created").containsExactly("A x1");
        assertThat(retried.value().output("order_created")).isEqualTo(orderIdOf(key, "A"));
        assertThat(shop.provider.ledger()).as("the retry's charge step carried the same downstream key")
                .extracting(Charge::id, Charge::orderId, Charge::amount)
                .containsExactly(tuple(retried.value().output("charge_created"),
                        orderIdOf(key, "A"), 100L));
        assertThat(recoveryPointsOf(key)).isEmpty();
    }

    /**
     * The charge step's downstream key belongs to the request too: request 1's charge landed at a
     * provider that deduplicates on its key, and request 2's charge of another order and amount under
     * the same key would be refused there, leaving the key unusable for any other body.
     */
    @Test
    void aRequestWithAnotherBodyIsNotRefusedByTheProviderUnderTheFailedRequestsChargeKey() throws Exception {
        String key = newKey();
        Shop shop = new Shop(key);
        shop.provider.chargeThenTimeOutNextCalls(1);
        assertThatThrownBy(() -> shop.place(ONE_A)).isInstanceOf(ProviderTimeoutException.class);

        IdempotentResult<Workflow.Progress> second = shop.place(FIVE_B);

        assertThat(second.outcome()).isEqualTo(Outcome.EXECUTED);
        List<Charge> ledger = shop.provider.ledger();
        assertThat(ledger).extracting(Charge::orderId, Charge::amount).containsExactly(
                tuple(orderIdOf(key, "A"), 100L),
                tuple(orderIdOf(key, "B"), 500L));
        assertThat(ledger.get(0).idempotencyKey()).isNotEqualTo(ledger.get(1).idempotencyKey());
        assertThat(second.value().output("charge_created")).isEqualTo(ledger.get(1).id());
    }

    /**
     * Recovery points are gone when another request takes the key over: request 2's first step deletes
     * request 1's, so request 1, retried once request 2 failed too, starts over rather than resume a
     * point another request's run passed.
     */
    @Test
    void anotherRequestsFirstStepDeletesTheRecoveryPointsOfTheRequestBeforeIt() throws Exception {
        String key = newKey();
        Shop shop = new Shop(key);
        shop.provider.failNextCalls(2);
        assertThatThrownBy(() -> shop.place(ONE_A)).isInstanceOf(ProviderTimeoutException.class);
        assertThatThrownBy(() -> shop.place(FIVE_B)).isInstanceOf(ProviderTimeoutException.class);

        assertThat(recoveryPointsOf(key)).as("only request 2's own order_created")
                .containsExactly("order_created=" + orderIdOf(key, "B"));

        IdempotentResult<Workflow.Progress> first = shop.place(ONE_A);
        assertThat(ordersOf(key)).containsExactly("A x1", "B x5", "A x1");
        assertThat(first.value().output("order_created")).isEqualTo(lastOrderIdOf(key));
        assertThat(shop.provider.ledger()).extracting(Charge::orderId, Charge::amount)
                .containsExactly(tuple(lastOrderIdOf(key), 100L));
        assertThat(recoveryPointsOf(key)).isEmpty();
    }

    /** A context built without the request's fingerprint cannot tell two requests apart, so it is refused. */
    @Test
    void aKeyedContextWithoutAFingerprintIsRefusedBeforeAnyStepRuns() throws Exception {
        String key = newKey();
        Shop shop = new Shop(key);
        IdempotencyContext unbound = new IdempotencyContext("order.create", key, IdempotencyContext.NO_FENCE,
                "idem_0123");

        assertThatThrownBy(() -> local.workflow(shop.workflow(ONE_A)).run(unbound))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("fingerprint");
        assertThat(ordersOf(key)).isEmpty();
        assertThat(shop.provider.callCount()).isZero();
    }

    /**
     * A table of schema version 3 gets the recovery points' fingerprint when the store opens it; a point
     * written before, whose request nobody can tell any more, is never resumed.
     */
    @Test
    void aVersionThreeTableIsUpgradedAndARecoveryPointWithoutAFingerprintIsNotResumed() throws Exception {
        String v3 = "v3_schema_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        String key = newKey();
        new PostgresTable(store).createVersionThreeTable(v3, ONE_A.call(key).namespace(), "order_created", "999");
        try (PostgresIdempotencyStore upgraded = new PostgresIdempotencyStore(
                store.config().toBuilder().table(v3).build())) {
            assertThat(strings("SELECT obj_description(to_regclass(?), 'pg_class')", v3))
                    .containsExactly(SchemaScript.VERSION_COMMENT);
            assertThat(strings("SELECT column_name::text FROM information_schema.columns WHERE table_name = ? "
                    + "AND column_name = 'fingerprint' AND table_schema = current_schema()", v3 + "_steps"))
                    .containsExactly("fingerprint");
            Shop shop = new Shop(key);
            IdempotentResult<Workflow.Progress> placed = IdempotencyCoordinator.builder(upgraded).build().call(
                    ONE_A.call(key), PROGRESS, LocalEffects.of(upgraded).workflow(shop.workflow(ONE_A)));

            assertThat(placed.outcome()).isEqualTo(Outcome.EXECUTED);
            assertThat(ordersOf(key)).containsExactly("A x1");
            assertThat(placed.value().output("order_created")).isEqualTo(orderIdOf(key, "A")).isNotEqualTo("999");
            assertThat(shop.provider.ledger()).extracting(Charge::orderId).containsExactly(orderIdOf(key, "A"));
        }
    }

    private static String newKey() {
        return "order-" + UUID.randomUUID();
    }

    /** One order request; its price is its amount. */
    private record OrderRequest(String sku, int quantity, long amount) {

        IdempotentCall call(String key) {
            return IdempotentCall.of("order.create", key,
                    Fingerprint.ofFields(Map.of("sku", sku, "quantity", quantity, "amount", amount)));
        }
    }

    /** A provider that deduplicates on its key, as real ones do, and the workflow that places an order. */
    private final class Shop {
        final FakePaymentProvider provider = FakePaymentProvider.builder().latency(Duration.ZERO)
                .deduplicateOnKey(true).build();
        private final String key;

        Shop(String key) {
            this.key = key;
        }

        IdempotentResult<Workflow.Progress> place(OrderRequest request) throws Exception {
            return coordinator.call(request.call(key), PROGRESS, local.workflow(workflow(request)));
        }

        Workflow workflow(OrderRequest request) {
            return Workflow.builder()
                    .local("order_created", (connection, progress, context) -> insertOrder(connection, key, request))
                    .remote("charge_created", (progress, downstreamKey, context) -> provider.charge(
                            progress.output("order_created"), request.amount(), downstreamKey).id())
                    .build();
        }
    }

    private String insertOrder(Connection connection, String key, OrderRequest request) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + orders
                + " (idempotency_key, sku, quantity) VALUES (?, ?, ?) RETURNING id")) {
            insert.setString(1, key);
            insert.setString(2, request.sku());
            insert.setInt(3, request.quantity());
            try (ResultSet row = insert.executeQuery()) {
                row.next();
                return Long.toString(row.getLong(1));
            }
        }
    }

    /** Each committed order of {@code key} as {@code sku xquantity}, in the order they were written. */
    private List<String> ordersOf(String key) throws SQLException {
        return strings("SELECT sku || ' x' || quantity FROM " + orders + " WHERE idempotency_key = ? ORDER BY id", key);
    }

    private String orderIdOf(String key, String sku) throws SQLException {
        // Aliased: "ORDER BY id" would otherwise sort the text column named id, putting order 10 before 9.
        List<String> ids = strings("SELECT id::text AS order_id FROM " + orders + " WHERE idempotency_key = ? "
                + "AND sku = '" + sku + "' ORDER BY id", key);
        assertThat(ids).as("orders of sku " + sku).isNotEmpty();
        return ids.get(0);
    }

    private String lastOrderIdOf(String key) throws SQLException {
        List<String> ids = strings("SELECT id::text AS order_id FROM " + orders + " WHERE idempotency_key = ? "
                + "ORDER BY id", key);
        return ids.get(ids.size() - 1);
    }

    /** The recovery points kept for {@code key}, as {@code phase=output}, in step order. */
    private List<String> recoveryPointsOf(String key) throws SQLException {
        return strings("SELECT phase || '=' || output FROM " + store.config().table() + "_steps WHERE namespace = ? "
                + "ORDER BY step", store.keyOf(ONE_A.call(key).namespace()));
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

    private Connection connect() throws SQLException {
        return DriverManager.getConnection(server.jdbcUrl(), server.user(), server.password());
    }
}
