package dev.idemlab.lab.scenario;

import dev.idemlab.idempotency.ContextualAction;
import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyContext;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.StoreFailureMode;
import dev.idemlab.idempotency.Fingerprint;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.store.postgres.IfOutcomeUnknown;
import dev.idemlab.idempotency.store.postgres.LocalEffects;
import dev.idemlab.idempotency.store.postgres.PostgresIdempotencyStore;
import dev.idemlab.idempotency.store.postgres.Workflow;
import dev.idemlab.lab.policy.LabPolicy;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.ChargeRequest;
import dev.idemlab.provider.PaymentProvider;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Placing an order, the failure lab's example of an operation with local and remote effects: create
 * the order (a row in {@code lab_orders}, in the store's own PostgreSQL), charge it (the provider),
 * mark it paid (the row again), send the receipt (a second provider service, standing in for a mailer).
 * One {@link Mode} per way of protecting it with a key, from the post's result cache to the record
 * committed with the effect. Both the holder in a child JVM and the client's retry in the lab run it,
 * so they take the same path. After each step it calls the {@link StepHook}: the holder's is where it
 * is killed or paused. Thread-safe.
 */
final class OrderPlacement {

    static final String OPERATION = "order.place";
    static final String TABLE = "lab_orders";
    /** The four steps, named after what each leaves behind. */
    static final List<String> PHASES = List.of("order_created", "charge_created", "order_paid", "receipt_sent");

    private static final ResultCodec<Workflow.Progress> PROGRESS = ResultCodec.json(Workflow.Progress.class);

    /**
     * Inside the workflow's charge step, where its outcome is unknown to a retry: {@code charge_started}
     * once its started marker committed and before the provider is called, {@code charge_answered} once the
     * provider answered and before the step's recovery point.
     */
    static final List<String> UNKNOWN_OUTCOME_POINTS = List.of("charge_started", "charge_answered");

    /** How the order is protected. */
    enum Mode {
        /** The post's result cache: look up, run, store the result. */
        RESULT_CACHE("result cache", false, null),
        /** The reservation, each effect committed as it happens, nothing passed downstream. */
        RESERVATION("reservation", false, null),
        /** The reservation, with the downstream key on the charge and the receipt. */
        DOWNSTREAM_KEY("reservation with the downstream key", false, null),
        /** The order's rows and the record in one transaction, remote calls with the downstream key. */
        TRANSACTIONAL("transactional (record committed with the order)", true, null),
        /** A workflow: a recovery point per step, remote steps with a key of their own. */
        WORKFLOW("workflow with recovery points", true, null),
        /** A workflow whose charge of unknown outcome is run again, at a provider that does not deduplicate. */
        WORKFLOW_RERUN("workflow, unknown step re-run with its downstream key, provider not deduplicating", false,
                IfOutcomeUnknown.RERUN_WITH_DOWNSTREAM_KEY),
        /** A workflow whose charge of unknown outcome is looked up at the provider (which does not deduplicate). */
        WORKFLOW_ASK_FIRST("workflow, unknown step looked up at the provider first, provider not deduplicating", true,
                IfOutcomeUnknown.ASK_FIRST),
        /** A workflow that stops at a charge of unknown outcome, for a person (the provider does not deduplicate). */
        WORKFLOW_STOP("workflow, unknown step stopped for a person, provider not deduplicating", true,
                IfOutcomeUnknown.STOP);

        final String label;
        final boolean mitigated;
        /** The charge step's policy for an unknown outcome, for the modes that show one; else {@code null}. */
        final IfOutcomeUnknown ifUnknown;

        Mode(String label, boolean mitigated, IfOutcomeUnknown ifUnknown) {
            this.label = label;
            this.mitigated = mitigated;
            this.ifUnknown = ifUnknown;
        }

        static Mode parse(String name) {
            return valueOf(name);
        }

        /** Whether the provider deduplicates on the downstream key: not for the modes that show a policy. */
        boolean deduplicatingProvider() {
            return ifUnknown == null;
        }

        /** The step boundaries this mode is hit at: inside the charge step for a policy, else between steps. */
        List<String> boundaries() {
            return ifUnknown == null ? PHASES : UNKNOWN_OUTCOME_POINTS;
        }
    }

    /** Called after each step with its phase. */
    @FunctionalInterface
    interface StepHook {
        void after(String phase);
    }

    private final Mode mode;
    private final PostgresIdempotencyStore store;
    private final StoreEndpoint endpoint;
    private final PaymentProvider provider;
    private final PaymentProvider mailer;
    private final StepHook hook;

    OrderPlacement(Mode mode, PostgresIdempotencyStore store, StoreEndpoint endpoint, PaymentProvider provider,
                   PaymentProvider mailer, StepHook hook) {
        this.mode = mode;
        this.store = store;
        this.endpoint = endpoint;
        this.provider = provider;
        this.mailer = mailer;
        this.hook = hook;
    }

    /**
     * The coordinator the mode runs under: the lab's result cache, or the library's under WAIT. The
     * modes whose effect lives in the store's database fail closed: with that database failing, running
     * the effect anyway would write it to the database that just failed, without its record.
     */
    static IdempotencyCoordinator coordinator(Mode mode, IdempotencyStore store, Duration lease) {
        IdempotencyConfig config = IdempotencyConfig.custom().lease(lease).waitTimeout(lease.multipliedBy(10))
                .storeFailureMode(mode.mitigated ? StoreFailureMode.FAIL_CLOSED : StoreFailureMode.FAIL_OPEN).build();
        return CoordinatorFactory.LIBRARY.create(store, mode == Mode.RESULT_CACHE ? LabPolicy.RUN : LabPolicy.WAIT,
                config);
    }

    /** Places order {@code orderRef} under {@code key}; returns what the call answered (the progress's outputs). */
    String place(IdempotencyCoordinator coordinator, String key, String orderRef) throws Exception {
        IdempotentCall call = IdempotentCall.of(OPERATION, key, Fingerprint.ofFields(Map.of("order", orderRef,
                "amount", ScenarioSettings.AMOUNT)));
        LocalEffects local = LocalEffects.of(store);
        Workflow.Progress progress = switch (mode) {
            case RESULT_CACHE, RESERVATION, DOWNSTREAM_KEY -> coordinator.execute(call, PROGRESS,
                    (ContextualAction<Workflow.Progress, Exception>) context -> stepByStep(context, orderRef));
            case TRANSACTIONAL -> coordinator.execute(call, PROGRESS,
                    local.inTransaction((connection, context) -> inOneTransaction(connection, context, orderRef)));
            case WORKFLOW, WORKFLOW_RERUN, WORKFLOW_ASK_FIRST, WORKFLOW_STOP -> coordinator.execute(call, PROGRESS,
                    local.workflow(workflow(orderRef)));
        };
        return progress.outputs().toString();
    }

    /** Each effect committed as it happens (auto-commit), on a connection of its own. */
    private Workflow.Progress stepByStep(IdempotencyContext context, String orderRef) throws SQLException {
        String downstream = mode == Mode.DOWNSTREAM_KEY ? context.downstreamKey() : null;
        try (Connection connection = connect()) {
            return steps(connection, downstream, orderRef);
        }
    }

    /** Every effect in the transaction the record completes in; the remote ones with the downstream key. */
    private Workflow.Progress inOneTransaction(Connection connection, IdempotencyContext context, String orderRef)
            throws SQLException {
        return steps(connection, context.downstreamKey(), orderRef);
    }

    private Workflow.Progress steps(Connection connection, String downstream, String orderRef) throws SQLException {
        Workflow.Progress progress = new Workflow.Progress(Map.of());
        long order = createOrder(connection, orderRef);
        progress = after(progress, "order_created", Long.toString(order));
        String charge = charge(orderRef, downstream == null ? null : downstream + ":charge_created");
        progress = after(progress, "charge_created", charge);
        markPaid(connection, order, charge);
        progress = after(progress, "order_paid", Long.toString(order));
        String receipt = sendReceipt(orderRef, downstream == null ? null : downstream + ":receipt_sent");
        return after(progress, "receipt_sent", receipt);
    }

    private Workflow.Progress after(Workflow.Progress progress, String phase, String output) {
        hook.after(phase);
        return progress.with(phase, output);
    }

    /**
     * The longest the lab's provider takes to answer a charge (it answers in tens of milliseconds): a retry
     * asks first, and a stop may be resolved as not done, once the charge step's marker is this old past
     * its holder's lease, so a crash's retry waits about a lease and this much rather than the default.
     */
    static final Duration PROVIDER_DEADLINE = Duration.ofSeconds(1);

    /**
     * The same four steps as a workflow. The hook of a step is called once that step committed: at the
     * start of the next step (its recovery point is in by then), and for the last one as soon as the
     * mailer answered, before its recovery point and the record's completion. Inside the charge step it is
     * also called at the {@link #UNKNOWN_OUTCOME_POINTS}. The charge step has the mode's policy for an
     * unknown outcome, the default where the mode names none.
     */
    private Workflow workflow(String orderRef) {
        Workflow.RemoteStep charge = (progress, key, context) -> {
            hook.after("order_created");
            hook.after("charge_started");
            String id = charge(orderRef, key);
            hook.after("charge_answered");
            return id;
        };
        Workflow.Builder builder = Workflow.builder()
                .local("order_created", (connection, progress, context) -> Long.toString(createOrder(connection, orderRef)));
        if (mode.ifUnknown == IfOutcomeUnknown.ASK_FIRST) {
            builder.remoteAskingFirst("charge_created", (progress, key, context) -> provider.chargesWithKey(key)
                    .stream().findFirst().map(Charge::id), PROVIDER_DEADLINE, charge);
        } else {
            builder.remote("charge_created", mode.ifUnknown == null ? IfOutcomeUnknown.DEFAULT : mode.ifUnknown,
                    PROVIDER_DEADLINE, charge);
        }
        return builder
                .local("order_paid", (connection, progress, context) -> {
                    hook.after("charge_created");
                    markPaid(connection, Long.parseLong(progress.output("order_created")),
                            progress.output("charge_created"));
                    return progress.output("order_created");
                })
                .remote("receipt_sent", (progress, key, context) -> {
                    hook.after("order_paid");
                    String id = sendReceipt(orderRef, key);
                    hook.after("receipt_sent");
                    return id;
                })
                .build();
    }

    private long createOrder(Connection connection, String orderRef) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO " + TABLE + " (order_ref, amount, status) VALUES (?, ?, 'created') RETURNING id")) {
            insert.setString(1, orderRef);
            insert.setLong(2, ScenarioSettings.AMOUNT);
            try (ResultSet row = insert.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }

    private static void markPaid(Connection connection, long order, String charge) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(
                "UPDATE " + TABLE + " SET status = 'paid', charge_id = ? WHERE id = ?")) {
            update.setString(1, charge);
            update.setLong(2, order);
            update.executeUpdate();
        }
    }

    private String charge(String orderRef, String key) {
        return provider.charge(new ChargeRequest(orderRef, ScenarioSettings.AMOUNT, key, null)).id();
    }

    private String sendReceipt(String orderRef, String key) {
        return mailer.charge(new ChargeRequest(orderRef, 1, key, null)).id();
    }

    private Connection connect() throws SQLException {
        return DriverManager.getConnection(endpoint.url(), endpoint.user(), endpoint.password());
    }

    /** Creates the orders table if it is not there: no unique constraint on the order, on purpose. */
    static void createTable(StoreEndpoint endpoint) throws SQLException {
        try (Connection connection = DriverManager.getConnection(endpoint.url(), endpoint.user(), endpoint.password());
             Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS " + TABLE + " (id bigserial PRIMARY KEY, order_ref text NOT NULL, "
                    + "amount bigint NOT NULL, status text NOT NULL, charge_id text)");
        }
    }

    /** How many rows the orders table holds for {@code orderRef}: the ground truth of the local effect. */
    static int orders(StoreEndpoint endpoint, String orderRef) throws SQLException {
        try (Connection connection = DriverManager.getConnection(endpoint.url(), endpoint.user(), endpoint.password());
             PreparedStatement count = connection.prepareStatement("SELECT count(*) FROM " + TABLE + " WHERE order_ref = ?")) {
            count.setString(1, orderRef);
            try (ResultSet row = count.executeQuery()) {
                row.next();
                return row.getInt(1);
            }
        }
    }
}
