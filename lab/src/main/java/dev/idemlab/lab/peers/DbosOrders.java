package dev.idemlab.lab.peers;

import dev.dbos.transact.DBOS;
import dev.dbos.transact.StartWorkflowOptions;
import dev.dbos.transact.txstep.JdbcStepFactory;
import dev.dbos.transact.workflow.Workflow;
import dev.idemlab.peers.DbosSystemDatabase;
import dev.idemlab.provider.ChargeRequest;
import dev.idemlab.provider.PaymentProvider;
import org.postgresql.ds.PGSimpleDataSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The failure lab's order placement (create the order, charge it, mark it paid, send the receipt) as a
 * DBOS Transact workflow written as DBOS documents one: the order's rows written by transactional steps
 * ({@link JdbcStepFactory#txStep}), whose checkpoint commits with the rows; the charge and the receipt
 * by plain steps ({@code runStep}), checkpointed once they return; the workflow id is the client's
 * key. The orders table lives in the DBOS schema, so it goes when the schema is dropped.
 *
 * <p>The {@link StepHook} is where a worker in a child JVM is killed or paused: right after each step's
 * effect, so at the worst moment DBOS leaves at that boundary: for a transactional step after its
 * commit (rows and checkpoint together, there is no moment between them), for a remote step once the
 * provider answered and before DBOS recorded the step's output.
 *
 * <p>Thread-safe once launched, as DBOS is.
 */
public final class DbosOrders implements AutoCloseable {

    /** The four steps, named after what each leaves behind, as the lab's own order placement names them. */
    public static final List<String> PHASES = List.of("order_created", "charge_created", "order_paid", "receipt_sent");
    /** One application version for every executor, so that one recovers what another left pending. */
    static final String APP_VERSION = "idemlab-orders-1";
    static final long AMOUNT = 10;

    /** Called right after each step's effect, with its phase. */
    @FunctionalInterface
    public interface StepHook {
        void after(String phase);
    }

    /** The workflow as clients call it, through DBOS's proxy. */
    public interface Orders {
        /** Places {@code orderRef}; returns what the steps produced. */
        String place(String orderRef) throws SQLException;
    }

    private final DbosSystemDatabase database;
    private final DBOS dbos;
    private final Orders orders;

    private DbosOrders(DbosSystemDatabase database, DBOS dbos, Orders orders) {
        this.database = database;
        this.dbos = dbos;
        this.orders = orders;
    }

    /**
     * Launches an executor on {@code database}: DBOS's defaults (executor id {@code local}), admin server
     * off. Launching recovers every workflow an executor of the same id left pending: DBOS's own
     * recovery, the one a restarted worker gets.
     *
     * @param downstreamKey whether the charge and the receipt carry a key of their own (the workflow id
     *                      and the step) for the provider to deduplicate on
     */
    public static DbosOrders launch(DbosSystemDatabase database, PaymentProvider provider, PaymentProvider mailer,
                                    boolean downstreamKey, StepHook hook) throws SQLException {
        createTable(database);
        DBOS dbos = new DBOS(database.config("idemlab-orders").withAppVersion(APP_VERSION));
        try {
            PGSimpleDataSource dataSource = new PGSimpleDataSource();
            dataSource.setURL(database.jdbcUrl());
            dataSource.setUser(database.user());
            dataSource.setPassword(database.password());
            JdbcStepFactory steps = new JdbcStepFactory(dbos, dataSource);
            Orders orders = dbos.registerProxy(Orders.class,
                    new OrderWorkflow(dbos, steps, database.schema(), provider, mailer, downstreamKey, hook));
            dbos.launch();
            return new DbosOrders(database, dbos, orders);
        } catch (RuntimeException e) {
            dbos.shutdown();
            throw e;
        }
    }

    /** Starts (or joins, when the id exists) the workflow {@code workflowId} and waits for its result. */
    public String place(String workflowId, String orderRef) throws SQLException {
        return dbos.startWorkflow(() -> orders.place(orderRef), new StartWorkflowOptions(workflowId)).getResult();
    }

    /** The workflow's status as DBOS records it ({@code SUCCESS}, {@code PENDING}, ...), or {@code none}. */
    public String status(String workflowId) {
        return dbos.getWorkflowStatus(workflowId).map(status -> status.status().name()).orElse("none");
    }

    /** How many rows the orders table holds for {@code orderRef}: the ground truth of the local effect. */
    public int orders(String orderRef) throws SQLException {
        try (Connection connection = database.connect();
             PreparedStatement count = connection.prepareStatement("SELECT count(*) FROM \"" + database.schema()
                     + "\".orders WHERE order_ref = ?")) {
            count.setString(1, orderRef);
            try (ResultSet row = count.executeQuery()) {
                row.next();
                return row.getInt(1);
            }
        }
    }

    /** The charge each row of {@code orderRef} is marked paid with, in row order; {@code -} for a row not paid. */
    public List<String> paidWith(String orderRef) throws SQLException {
        try (Connection connection = database.connect();
             PreparedStatement rows = connection.prepareStatement("SELECT coalesce(charge_id, '-') FROM \""
                     + database.schema() + "\".orders WHERE order_ref = ? ORDER BY id")) {
            rows.setString(1, orderRef);
            List<String> charges = new java.util.ArrayList<>();
            try (ResultSet row = rows.executeQuery()) {
                while (row.next()) {
                    charges.add(row.getString(1));
                }
            }
            return charges;
        }
    }

    @Override
    public void close() {
        dbos.shutdown();
    }

    /** The orders table, in DBOS's schema: no unique constraint on the order, on purpose (as the lab's). */
    private static void createTable(DbosSystemDatabase database) throws SQLException {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA IF NOT EXISTS \"" + database.schema() + "\"");
            statement.execute("CREATE TABLE IF NOT EXISTS \"" + database.schema() + "\".orders (id bigserial PRIMARY "
                    + "KEY, order_ref text NOT NULL, amount bigint NOT NULL, status text NOT NULL, charge_id text)");
        }
    }

    /** The workflow and its four steps. */
    static final class OrderWorkflow implements Orders {

        private final DBOS dbos;
        private final JdbcStepFactory steps;
        private final String table;
        private final PaymentProvider provider;
        private final PaymentProvider mailer;
        private final boolean downstreamKey;
        private final StepHook hook;

        OrderWorkflow(DBOS dbos, JdbcStepFactory steps, String schema, PaymentProvider provider, PaymentProvider mailer,
                      boolean downstreamKey, StepHook hook) {
            this.dbos = dbos;
            this.steps = steps;
            this.table = "\"" + schema + "\".orders";
            this.provider = provider;
            this.mailer = mailer;
            this.downstreamKey = downstreamKey;
            this.hook = hook;
        }

        @Override
        @Workflow(name = "placeOrder")
        public String place(String orderRef) throws SQLException {
            String key = DBOS.workflowId();
            long order = steps.txStep((JdbcStepFactory.TransactionalFunction<Long, SQLException>)
                    connection -> createOrder(connection, orderRef), "order_created");
            hook.after("order_created");
            String charge = dbos.runStep(() -> remote(provider, orderRef, AMOUNT, key, "charge_created"), "charge_created");
            steps.txStep((JdbcStepFactory.TransactionalFunction<Long, SQLException>)
                    connection -> markPaid(connection, order, charge), "order_paid");
            hook.after("order_paid");
            String receipt = dbos.runStep(() -> remote(mailer, orderRef, 1, key, "receipt_sent"), "receipt_sent");
            return "order " + order + ", " + charge + ", receipt " + receipt;
        }

        private String remote(PaymentProvider service, String orderRef, long amount, String key, String phase) {
            String id = service.charge(new ChargeRequest(orderRef, amount, downstreamKey ? key + ":" + phase : null,
                    null)).id();
            hook.after(phase);
            return id;
        }

        private long createOrder(Connection connection, String orderRef) throws SQLException {
            try (PreparedStatement insert = connection.prepareStatement(
                    "INSERT INTO " + table + " (order_ref, amount, status) VALUES (?, ?, 'created') RETURNING id")) {
                insert.setString(1, orderRef);
                insert.setLong(2, AMOUNT);
                try (ResultSet row = insert.executeQuery()) {
                    row.next();
                    return row.getLong(1);
                }
            }
        }

        private long markPaid(Connection connection, long order, String charge) throws SQLException {
            try (PreparedStatement update = connection.prepareStatement(
                    "UPDATE " + table + " SET status = 'paid', charge_id = ? WHERE id = ?")) {
                update.setString(1, charge);
                update.setLong(2, order);
                return update.executeUpdate();
            }
        }
    }
}
