package dev.idemlab.peers.internal;

import dev.dbos.transact.DBOS;
import dev.dbos.transact.StartWorkflowOptions;
import dev.dbos.transact.workflow.Workflow;
import dev.idemlab.peers.ChargeReceipt;
import dev.idemlab.peers.DbosSystemDatabase;
import dev.idemlab.peers.PeerLibrary;
import dev.idemlab.peers.StoreKind;
import dev.idemlab.provider.FakePaymentProvider;

/**
 * DBOS Transact, the durable-workflow engine, as its documentation has a payment written: a workflow
 * whose id is the client's idempotency key, and whose one step charges the provider (with the
 * workflow id passed downstream, as the other peers pass their key). DBOS keeps the workflow's status,
 * input, output and each step's output in its system database, a PostgreSQL schema of this peer's own
 * ({@link DbosSystemDatabase}), dropped when the peer closes. Admin server off, every other setting
 * DBOS's default.
 *
 * <p>Thread-safe: DBOS's handle is.
 */
public final class DbosPeer implements PeerLibrary {

    /** The workflow as its clients call it: through the proxy DBOS returns, by a workflow id. */
    public interface Payments {
        /** Charges {@code amount} for {@code orderId} in one step; the workflow's id is the key. */
        ChargeReceipt charge(String orderId, long amount);
    }

    /** The workflow and its step. */
    static final class PaymentWorkflows implements Payments {

        private final DBOS dbos;
        private final FakePaymentProvider provider;

        PaymentWorkflows(DBOS dbos, FakePaymentProvider provider) {
            this.dbos = dbos;
            this.provider = provider;
        }

        @Override
        @Workflow(name = "charge")
        public ChargeReceipt charge(String orderId, long amount) {
            String key = DBOS.workflowId();
            return dbos.runStep(() -> ChargeReceipt.of(provider.charge(orderId, amount, key)), "charge_created");
        }
    }

    private final DbosSystemDatabase database;
    private final DBOS dbos;
    private final Payments payments;

    private DbosPeer(DbosSystemDatabase database, DBOS dbos, Payments payments) {
        this.database = database;
        this.dbos = dbos;
        this.payments = payments;
    }

    /**
     * Launches DBOS on {@code jdbcUrl} with a system-database schema of its own.
     *
     * @param jdbcUrl {@code jdbc:postgresql://host:port/db?user=...&password=...}
     * @throws RuntimeException when DBOS cannot launch (its database unreachable, say)
     */
    public static DbosPeer open(FakePaymentProvider provider, String jdbcUrl) {
        DbosSystemDatabase database = DbosSystemDatabase.fresh(jdbcUrl, "dbos_peer_");
        DBOS dbos = new DBOS(database.config("idemlab-peers"));
        try {
            Payments payments = dbos.registerProxy(Payments.class, new PaymentWorkflows(dbos, provider));
            dbos.launch();
            return new DbosPeer(database, dbos, payments);
        } catch (RuntimeException e) {
            dbos.shutdown();
            database.drop();
            throw e;
        }
    }

    @Override
    public String name() {
        return "dbos";
    }

    @Override
    public String version() {
        return DBOS.version();
    }

    @Override
    public String wiring() {
        return "a @Workflow started with the key as its workflow id (startWorkflow, then getResult), one step "
                + "(runStep) charging with the workflow id downstream; system database in a schema of its own on "
                + "the lab's PostgreSQL, admin server off, every other setting DBOS's default";
    }

    @Override
    public StoreKind storeKind() {
        return StoreKind.POSTGRES;
    }

    @Override
    public Object charge(String idempotencyKey, String orderId, long amount) {
        return dbos.startWorkflow(() -> payments.charge(orderId, amount), new StartWorkflowOptions(idempotencyKey))
                .getResult();
    }

    @Override
    public void close() {
        try {
            dbos.shutdown();
        } finally {
            database.drop();
        }
    }
}
