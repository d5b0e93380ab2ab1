package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.IdempotencyContext;
import dev.idemlab.idempotency.spi.TransactionalAction;
import dev.idemlab.idempotency.store.postgres.LocalEffects;
import dev.idemlab.idempotency.store.postgres.Workflow;
import dev.idemlab.lab.load.LoadKeys;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.FakePaymentProvider;
import dev.idemlab.provider.ProviderTimeoutException;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

/**
 * The nemesis's local effects on PostgreSQL: each request places an order as a {@link Workflow} of the
 * library's, in the store's own database: {@code order_created} (a row in {@value #TABLE}, committed with
 * its recovery point), {@code charge_created} (the provider, with the step's downstream key; a caller
 * whose action fails times out here, after its order was written, so that its retry, or another request
 * on the freed key, resumes or starts over), {@code order_paid} (the row again). After the run the
 * orders are read back beside the calls' answers: an answer names an order of its own request (its key
 * and its amount), paid by the charge it answered with, and no two orders were paid by one charge. Not
 * thread-safe to create or check; the actions it hands out are.
 */
final class OrderBook implements AutoCloseable {

    static final String TABLE = "nemesis_orders";

    private final DataSource database;

    /** Makes an empty {@value #TABLE} in {@code database}, the store's own. */
    OrderBook(DataSource database) throws SQLException {
        this.database = database;
        try (Connection connection = database.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS " + TABLE);
            statement.execute("CREATE TABLE " + TABLE + " (id bigserial PRIMARY KEY, request_key integer NOT NULL, "
                    + "amount bigint NOT NULL, charge_id text)");
        }
    }

    /**
     * What a run of the order workflow does besides its steps' work: where its action began, how it
     * charges, and what it does at each step boundary (a holder in a child JVM stops there to be paused
     * or killed). The workflow itself, its steps and their names, is one for every caller, in this JVM
     * or a child's, so that any of them resumes what another left.
     */
    interface Steps {

        /** A step of this call began under {@code context}: the first one is where its action began. */
        void began(IdempotencyContext context);

        /** The charge of {@code downstreamKey} (the step's key, or the request's where it has none); its id. */
        String charge(String downstreamKey) throws Exception;

        /**
         * The workflow reached {@code boundary}: {@link #AFTER_ORDER} (the order committed with its
         * recovery point, nothing charged), {@link #AFTER_CHARGE} (the provider charged, the step's
         * recovery point not yet written) or {@link #BEFORE_PAID} (the charge's recovery point written,
         * the order not yet paid).
         */
        default void at(String boundary) throws Exception { }
    }

    /** The boundary after {@code order_created}: the order is committed, nothing is charged. */
    static final String AFTER_ORDER = "order_created";
    /** The boundary inside {@code charge_created}, once the provider charged: its recovery point is not written. */
    static final String AFTER_CHARGE = "charged";
    /** The boundary before {@code order_paid}: the charge's recovery point is written, the order is unpaid. */
    static final String BEFORE_PAID = "charge_created";
    /** Every boundary a holder may be stopped at, in the order a run reaches them. */
    static final List<String> BOUNDARIES = List.of(AFTER_ORDER, AFTER_CHARGE, BEFORE_PAID);

    /**
     * The action of {@code record}'s call: the workflow over {@code local}, charging {@code provider} the
     * call's amount after sleeping {@code actionMillis}, or failing there when {@code fails}.
     */
    TransactionalAction<Workflow.Progress, Exception> action(LocalEffects local, CallRecord record, long actionMillis,
                                                             boolean fails, FakePaymentProvider provider,
                                                             LongSupplier now) {
        AtomicBoolean started = new AtomicBoolean();
        return local.workflow(workflow(record.key, record::amount, new Steps() {
            @Override
            public void began(IdempotencyContext context) {
                if (started.compareAndSet(false, true)) {
                    record.actionStarted(now.getAsLong(), context == null ? IdempotencyContext.NO_FENCE
                            : context.fence());
                }
            }

            @Override
            public String charge(String downstreamKey) throws Exception {
                Thread.sleep(actionMillis);
                if (fails) {
                    throw new ProviderTimeoutException(LoadKeys.orderId(record.key));
                }
                Charge charge = provider.charge(LoadKeys.orderId(record.key), record.amount(), downstreamKey);
                record.charged(charge.id());
                return charge.id();
            }
        }));
    }

    /**
     * The order workflow of request {@code key} asking {@code amount} (read as the order is written: a
     * call learns that it reuses its key with another body as it is sent): {@code order_created} (a row,
     * committed with its recovery point), {@code charge_created} (through {@code steps}, under the step's
     * downstream key), {@code order_paid} (the row again), {@code steps} told where each boundary is.
     */
    static Workflow workflow(int key, LongSupplier amount, Steps steps) {
        return Workflow.builder()
                .local("order_created", (connection, progress, context) -> {
                    steps.began(context);
                    return Long.toString(insert(connection, key, amount.getAsLong()));
                })
                .remote("charge_created", (progress, downstreamKey, context) -> {
                    steps.began(context);
                    steps.at(AFTER_ORDER);
                    String charge = steps.charge(downstreamKey != null ? downstreamKey : LoadKeys.key(key));
                    steps.at(AFTER_CHARGE);
                    return charge;
                })
                .local("order_paid", (connection, progress, context) -> {
                    steps.began(context);
                    steps.at(BEFORE_PAID);
                    pay(connection, progress.output("order_created"), progress.output("charge_created"));
                    return progress.output("order_created");
                })
                .build();
    }

    private static long insert(Connection connection, int key, long amount) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO " + TABLE + " (request_key, amount) VALUES (?, ?) RETURNING id")) {
            insert.setInt(1, key);
            insert.setLong(2, amount);
            try (ResultSet row = insert.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }

    private static void pay(Connection connection, String order, String charge) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(
                "UPDATE " + TABLE + " SET charge_id = ? WHERE id = ?")) {
            update.setString(1, charge);
            update.setLong(2, Long.parseLong(order));
            update.executeUpdate();
        }
    }

    /** One row of the table, as read back. */
    record Order(long id, int key, long amount, String charge) { }

    /**
     * What the orders and the calls' answers show that the contract forbids: an answer whose order is
     * missing, of another request (another key or amount: a result built on another request's steps), or
     * paid by another charge than the answer's; two orders paid by one charge; two orders of one request
     * (its key and amount) both paid: per request, one order and one charge.
     */
    List<Violation> check(List<CallRecord> calls) throws SQLException {
        Map<Long, Order> orders = read();
        List<Violation> violations = new ArrayList<>();
        for (CallRecord call : calls) {
            if (call.order() == null) {
                continue;
            }
            Order order = orders.get(Long.parseLong(call.order()));
            if (order == null) {
                violations.add(new Violation("answer-without-its-order", call.key, "call " + call.id + " answered "
                        + call.chargeId() + " for order " + call.order() + ", which the orders table does not hold"));
            } else if (order.key() != call.key || order.amount() != call.amount()) {
                violations.add(new Violation("result-of-another-request", call.key, "call " + call.id + " asked for "
                        + call.amount() + " and was answered with order " + order.id() + " (key " + order.key()
                        + ", amount " + order.amount() + "): a result built on another request's steps"));
            } else if (order.charge() == null || !order.charge().equals(call.chargeId())) {
                violations.add(new Violation("order-not-paid-by-its-charge", call.key, "call " + call.id
                        + " answered " + call.chargeId() + " for order " + order.id() + ", which the table says was "
                        + (order.charge() == null ? "never paid" : "paid by " + order.charge())));
            }
        }
        Map<String, Order> paidBy = new HashMap<>();
        Map<String, Order> paidFor = new HashMap<>();
        for (Order order : orders.values()) {
            Order other = order.charge() == null ? null : paidBy.putIfAbsent(order.charge(), order);
            if (other != null) {
                violations.add(new Violation("one-charge-two-orders", order.key(), "orders " + other.id() + " and "
                        + order.id() + " were both paid by " + order.charge()));
            }
            Order sameRequest = order.charge() == null ? null
                    : paidFor.putIfAbsent(order.key() + "/" + order.amount(), order);
            if (sameRequest != null) {
                violations.add(new Violation("two-orders-one-request", order.key(), "orders " + sameRequest.id()
                        + " and " + order.id() + " of one request (key " + order.key() + ", amount " + order.amount()
                        + ") were both paid, by " + sameRequest.charge() + " and " + order.charge()));
            }
        }
        return violations;
    }

    /** The table's rows by id. */
    Map<Long, Order> read() throws SQLException {
        Map<Long, Order> orders = new HashMap<>();
        try (Connection connection = database.getConnection(); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT id, request_key, amount, charge_id FROM " + TABLE)) {
            while (rows.next()) {
                orders.put(rows.getLong(1), new Order(rows.getLong(1), rows.getInt(2), rows.getLong(3),
                        rows.getString(4)));
            }
        }
        return orders;
    }

    /** Drops the table. */
    @Override
    public void close() throws SQLException {
        try (Connection connection = database.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS " + TABLE);
        }
    }
}
