package dev.idemlab.idempotency.store.postgres;

import dev.idemlab.idempotency.IdempotencyContext;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.LocalTransaction;
import dev.idemlab.idempotency.spi.StoredResult;
import dev.idemlab.idempotency.spi.TransactionalAction;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;

/**
 * Exactly-once for effects that live in the store's own PostgreSQL database: the key's record is
 * completed in the effect's own transaction, so both commit or neither does. Pass what this builds to
 * the coordinator wherever it takes an action:
 *
 * <pre>{@code
 * LocalEffects local = LocalEffects.of(store);
 * Order order = coordinator.execute(call, ResultCodec.json(Order.class),
 *         local.inTransaction((connection, context) -> orders.insert(connection, request)));
 * }</pre>
 *
 * <p>What it guarantees, and where it stops:
 * <ul>
 *   <li>The reservation commits on its own first, so that identical requests see it at once. The holder's
 *       effect and the token-checked completion of its record then commit in one transaction, at READ
 *       COMMITTED. A holder that crashes or throws commits neither, and the retry runs the effect once.</li>
 *   <li>A holder whose key was taken over (paused past its lease while another attempt reserved it)
 *       completes nothing, and its transaction rolls back with its effect:
 *       {@link dev.idemlab.idempotency.IdempotencyFencedException}.</li>
 *   <li>Only writes through the connection handed to the effect are covered: the same database as the
 *       store, the store's pool (or the {@code DataSource} the store was opened with). A remote call made
 *       inside the effect is not undone by a rollback; give it the context's downstream key, or use a
 *       {@link Workflow}, whose remote steps run outside any transaction with a key of their own.</li>
 *   <li>The effect's statements run under the pool's settings, the store's {@code statement_timeout}
 *       included. A read replica never serves them: they run on the primary the store writes to.</li>
 * </ul>
 *
 * <p>Immutable and thread-safe.
 */
public final class LocalEffects {

    private final PostgresIdempotencyStore store;

    private LocalEffects(PostgresIdempotencyStore store) {
        this.store = store;
    }

    /**
     * Local effects on {@code store}'s database. The coordinator they are passed to must keep its records
     * in this same store: the completion is written where the reservation is.
     */
    public static LocalEffects of(PostgresIdempotencyStore store) {
        return new LocalEffects(Objects.requireNonNull(store, "store"));
    }

    /**
     * The action that writes {@code effect} in one transaction with the completion of the key's record.
     * Without a reservation (no key, or the coordinator failed open) the effect commits on its own.
     */
    public <T, E extends Exception> TransactionalAction<T, E> inTransaction(JdbcEffect<T, E> effect) {
        Objects.requireNonNull(effect, "effect");
        return new TransactionalAction<>() {
            @Override
            public LocalTransaction<T, E> begin() {
                return EffectTransaction.begin(store, effect);
            }

            @Override
            public T run(IdempotencyContext context) throws E {
                try (EffectTransaction<T, E> transaction = EffectTransaction.begin(store, effect)) {
                    T value = transaction.run(context);
                    transaction.commitAlone();
                    return value;
                }
            }
        };
    }

    /**
     * The {@code DataSource} a transaction must be opened on for {@link #completeIn} to commit the effect
     * and the record together: the store's own pool, or the {@code DataSource} it was opened with (a
     * Spring application's, through the starter).
     */
    public DataSource dataSource() {
        return store.pool();
    }

    /**
     * Completes the reservation held by {@code token} with {@code result}, token-checked, in the
     * transaction open on {@code connection}, and commits nothing: for a transaction that something else
     * opened and commits (Spring's transaction manager, through the starter's {@code @LocalEffect}). It is
     * the same complete function as {@link #inTransaction}'s, and it forgets the namespace's recovery
     * points in the same transaction. The owner of the transaction then commits effect and record
     * together, or, when this returns {@code false}, rolls both back.
     *
     * <p>{@code connection} must come from {@link #dataSource()}, be in a transaction (auto-commit off),
     * preferably at READ COMMITTED: the holder's renewals commit meanwhile on other connections, which a
     * REPEATABLE READ snapshot would report as a serialization failure.
     *
     * @return {@code false} if {@code token} no longer holds the key (another attempt took it over): the
     *     record was not written and the caller must roll the transaction back
     * @throws IdempotencyStoreException if the statement failed; the caller must roll back
     */
    public boolean completeIn(Connection connection, String namespace, String token, String fingerprint,
                              StoredResult result, Duration ttl) {
        Objects.requireNonNull(connection, "connection");
        try {
            return Transactions.complete(store, connection, namespace, token, fingerprint, result, ttl);
        } catch (SQLException | RuntimeException e) {
            throw store.failure("complete", namespace, e);
        }
    }

    /**
     * The action that runs {@code workflow}'s steps, each local one in a transaction with its recovery
     * point, and completes the record in a last transaction that also forgets the recovery points. A
     * retry of the same request (same key, same fingerprint) after a crash or a failure resumes after its
     * last recovery point; a request with another fingerprint on the key never does, and its first
     * recovery point deletes the other request's. Its result is the steps' outputs. The local steps run on
     * connections of the store's pool.
     */
    public TransactionalAction<Workflow.Progress, Exception> workflow(Workflow workflow) {
        return workflow(workflow, WorkflowRun.onPool(store));
    }

    /**
     * As {@link #workflow(Workflow)}, with each local step's transaction opened and committed by
     * {@code transactions} (the Spring Boot starter's: the application's transaction manager, so that a
     * step's {@code JdbcTemplate} joins it). Recovery points of remote steps, their started markers and the
     * completion of the record stay on the store's pool: no code of the application's runs in them.
     */
    public TransactionalAction<Workflow.Progress, Exception> workflow(Workflow workflow,
                                                                      StepTransactions transactions) {
        Objects.requireNonNull(workflow, "workflow");
        Objects.requireNonNull(transactions, "transactions");
        return new TransactionalAction<>() {
            @Override
            public LocalTransaction<Workflow.Progress, Exception> begin() {
                return new WorkflowRun(store, workflow, true, transactions);
            }

            @Override
            public Workflow.Progress run(IdempotencyContext context) throws Exception {
                try (WorkflowRun run = new WorkflowRun(store, workflow, false, transactions)) {
                    Workflow.Progress progress = run.run(context);
                    run.forgetSteps(context);
                    return progress;
                }
            }
        };
    }
}
