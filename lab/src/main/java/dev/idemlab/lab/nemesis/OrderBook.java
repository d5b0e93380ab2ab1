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
     * The action of {@code record}'s call: the workflow over {@code local}, charging {@code provider} the
     * call's amount after sleeping {@code actionMillis}, or failing there when {@code fails}.
     */
    TransactionalAction<Workflow.Progress, Exception> action(LocalEffects local, CallRecord record, long actionMillis,
                                                             boolean fails, FakePaymentProvider provider,
                                                             LongSupplier now) {
        AtomicBoolean started = new AtomicBoolean();
        Workflow workflow = Workflow.builder()
                .local("order_created", (connection, progress, context) -> {
                    began(record, started, context, now);
                    return Long.toString(insert(connection, record));
                })
                .remote("charge_created", (progress, downstreamKey, context) -> {
                    began(record, started, context, now);
                    Thread.sleep(actionMillis);
                    if (fails) {
                        throw new ProviderTimeoutException(LoadKeys.orderId(record.key));
                    }
                    String key = downstreamKey != null ? downstreamKey : LoadKeys.key(record.key);
                    Charge charge = provider.charge(LoadKeys.orderId(record.key), record.amount(), key);
                    record.charged(charge.id());
                    return charge.id();
                })
                .local("order_paid", (connection, progress, context) -> {
                    began(record, started, context, now);
                    pay(connection, progress.output("order_created"), progress.output("charge_created"));
                    return progress.output("order_created");
                })
                .build();
        return local.workflow(workflow);
    }

    /** The first step this call runs (a resumed workflow skips those done) is where its action began. */
    private static void began(CallRecord record, AtomicBoolean started, IdempotencyContext context, LongSupplier now) {
        if (started.compareAndSet(false, true)) {
            record.actionStarted(now.getAsLong(), context == null ? IdempotencyContext.NO_FENCE : context.fence());
        }
    }

    private static long insert(Connection connection, CallRecord record) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO " + TABLE + " (request_key, amount) VALUES (?, ?) RETURNING id")) {
            insert.setInt(1, record.key);
            insert.setLong(2, record.amount());
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
     * paid by another charge than the answer's; two orders paid by one charge.
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
        for (Order order : orders.values()) {
            Order other = order.charge() == null ? null : paidBy.putIfAbsent(order.charge(), order);
            if (other != null) {
                violations.add(new Violation("one-charge-two-orders", order.key(), "orders " + other.id() + " and "
                        + order.id() + " were both paid by " + order.charge()));
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
