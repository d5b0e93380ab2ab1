package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.ContextualAction;
import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotencyStats;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.StoreFailureMode;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.store.postgres.LocalEffects;
import dev.idemlab.idempotency.store.postgres.PostgresIdempotencyStore;
import dev.idemlab.idempotency.store.postgres.Workflow;
import dev.idemlab.provider.FakePaymentProvider;

import java.io.IOException;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

/**
 * Calls to the coordinator whose action is a workflow of local effects on the store's own PostgreSQL:
 * each request places an order ({@link OrderBook}). As local effects are meant to be run, every caller
 * fails closed (with their database failing, the order could not be written anyway), and the provider
 * deduplicates on each remote step's key. Holders in child JVMs run the same workflow
 * ({@link WorkflowHolderMain}) and are killed or paused at a step boundary (after the order, after the
 * charge, before the order is paid), then recovered by the key's retries in this process. After the run
 * the orders are read back beside the answers, then their table dropped. Thread-safe.
 */
final class LocalEffectsPath implements CallPath {

    private static final ResultCodec<Workflow.Progress> PROGRESS = ResultCodec.json(Workflow.Progress.class);

    private final Map<String, IdempotencyCoordinator> coordinators;
    private final LocalEffects local;
    private final OrderBook orders;
    private final FakePaymentProvider provider;
    private final Callers callers;

    private LocalEffectsPath(Map<String, IdempotencyCoordinator> coordinators, LocalEffects local, OrderBook orders,
                             FakePaymentProvider provider, Callers callers) {
        this.coordinators = coordinators;
        this.local = local;
        this.orders = orders;
        this.provider = provider;
        this.callers = callers;
    }

    /**
     * The path over {@code store}, which must be PostgreSQL's: the orders live in its database.
     *
     * @throws IllegalArgumentException for another store
     * @throws IOException when the orders' table cannot be made
     */
    static LocalEffectsPath open(NemesisSettings settings, IdempotencyStore store, IdempotencyConfig config,
                                 FakePaymentProvider provider, Callers callers) throws IOException {
        if (!(store instanceof PostgresIdempotencyStore postgres)) {
            throw new IllegalArgumentException("local effects live in the store's own PostgreSQL: run them on postgres");
        }
        LocalEffects local = LocalEffects.of(postgres);
        try {
            return new LocalEffectsPath(CoordinatorPath.coordinators(settings, store, config), local,
                    new OrderBook(local.dataSource()), provider, callers);
        } catch (SQLException e) {
            throw new IOException("the nemesis could not make its orders' table: " + e.getMessage(), e);
        }
    }

    @Override
    public StoreFailureMode onStoreFailure(Workload.Caller caller) {
        return StoreFailureMode.FAIL_CLOSED;
    }

    @Override
    public void send(Workload.Caller caller, CallRecord record, Runnable answered) {
        IdempotencyCoordinator coordinator = coordinators.get(CoordinatorPath.name(caller.policy(),
                onStoreFailure(caller)));
        ContextualAction<Workflow.Progress, Exception> order = orders.action(local, record, caller.actionMillis(),
                caller.actionFails(), provider, callers::now);
        CoordinatorPath.send(callers, coordinator, CoordinatorPath.callOf(caller, record), PROGRESS, order,
                (progress, how) -> record.answered(callers.now(), progress.outputs().get("charge_created"), how,
                        progress.outputs().get("order_created")), caller, record, answered);
    }

    @Override
    public List<Violation> check(List<CallRecord> calls) throws IOException {
        try {
            return orders.check(calls);
        } catch (SQLException e) {
            throw new IOException("the nemesis could not read its orders back: " + e.getMessage(), e);
        }
    }

    @Override
    public IdempotencyStats stats() {
        return CoordinatorPath.stats(coordinators);
    }

    /** Drops the orders' table, best effort: the run's verdict is already taken. */
    @Override
    public void close() {
        try {
            orders.close();
        } catch (SQLException ignored) {
            // a store the faults left unreachable: a private server goes with the run, a given one keeps a table
        }
    }
}
