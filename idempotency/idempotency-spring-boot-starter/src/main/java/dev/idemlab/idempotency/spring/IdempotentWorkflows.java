package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.Fingerprint;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.store.postgres.StepOutcomeUnknownException;
import dev.idemlab.idempotency.store.postgres.Workflow;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.transaction.IllegalTransactionStateException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.ClassUtils;

import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs a multi-step {@link Workflow} (local steps each committed with a recovery point, remote steps each
 * with a downstream key of its own and a policy for an unknown outcome) under an idempotency key, from a
 * Spring Boot service: what {@link LocalEffect} does for one step, for several. The starter makes this bean
 * when spring-jdbc and idempotency-postgres are on the class path; it is made when something injects it,
 * and then refuses, naming the rule, a store that is not the PostgreSQL one and a transaction manager that
 * is missing, on another {@code DataSource} or with synchronization off, as {@code @LocalEffect} does.
 *
 * <pre>{@code
 * Workflow.Progress progress = workflows.run("orders.place", key,
 *         Map.of("sku", request.sku(), "amount", request.amount()), placeOrder);
 * }</pre>
 *
 * <p>A call goes through the application's {@link IdempotencyCoordinator} bean, as an {@code @Idempotent}
 * method's does, with the same conventions: the fingerprint is the canonical JSON of the named parts (the
 * same as {@code @Idempotent(fingerprint = ...)} naming parameters of those names and values); with Spring
 * Security on the class path the operation is scoped per principal ({@link PrincipalScope}) unless the call
 * is {@link #runGlobal}; a {@code null} key runs the workflow without a reservation or recovery points,
 * logged at WARN once per operation. The result is the steps' outputs, stored with the record, so a retry
 * after completion replays it without running a step. A retry of the same request after a crash or a
 * failure resumes after the last recovery point: see {@link Workflow}.
 *
 * <p>Each local step runs in a transaction of the application's transaction manager on the store's
 * {@code DataSource}, at READ COMMITTED, the one a {@code @LocalEffect} method runs in: the
 * {@code Connection} the step is handed is that transaction's, and the step's {@code JdbcTemplate}
 * statements join it, so its writes and its recovery point commit together. A step that throws or marks
 * its transaction rollback-only ({@code UnexpectedRollbackException}) leaves neither, and the run ends with
 * its exception, unchanged; the key is released and a retry resumes at that step. A remote step runs
 * outside any transaction. Called while a transaction is active, a run is refused with
 * {@link IllegalTransactionStateException} before anything is reserved: each step must commit its recovery
 * point before the next one runs, which a caller's transaction would hold back (and its rollback undo).
 * Set {@code idempotency.store-failure-mode: fail-closed}, as for local effects: failing open runs the
 * workflow without a reservation, and so without recovery points.
 *
 * <p>Immutable and thread-safe.
 */
public final class IdempotentWorkflows {

    private static final Logger LOG = LoggerFactory.getLogger(IdempotentWorkflows.class);
    private static final ResultCodec<Workflow.Progress> PROGRESS = ResultCodec.json(Workflow.Progress.class);
    /** How the rules name a workflow and what it writes. */
    private static final LocalEffectTransactions.Subject WORKFLOW = new LocalEffectTransactions.Subject("a workflow",
            "each local step's recovery point is written in the step's transaction, and the record completed, on "
                    + "the store's database",
            "a local step's writes and its recovery point");

    private final IdempotencyCoordinator coordinator;
    private final LocalEffectTransactions.Binding binding;
    private final boolean scoping;
    private final Set<String> loggedWithoutKey = ConcurrentHashMap.newKeySet();

    private IdempotentWorkflows(IdempotencyCoordinator coordinator, LocalEffectTransactions.Binding binding,
                                boolean scoping) {
        this.coordinator = coordinator;
        this.binding = binding;
        this.scoping = scoping;
    }

    /**
     * Workflows on {@code store} through {@code coordinator}, whose records must be kept in that store, each
     * local step in a transaction of {@code transactions}; keys are scoped per principal when Spring Security
     * is visible to {@code classLoader}.
     *
     * @throws IllegalStateException naming the rule, if {@code store} is not a
     *     {@code PostgresIdempotencyStore}, {@code transactions} is {@code null} (none, or several without a
     *     primary), does not manage the store's {@code DataSource}, or has transaction synchronization off
     */
    public static IdempotentWorkflows of(IdempotencyCoordinator coordinator, IdempotencyStore store,
                                         PlatformTransactionManager transactions, ClassLoader classLoader) {
        Objects.requireNonNull(coordinator, "coordinator");
        LocalEffectTransactions.Binding binding = LocalEffectTransactions.bind("IdempotentWorkflows", WORKFLOW, store,
                transactions);
        return new IdempotentWorkflows(coordinator, binding,
                ClassUtils.isPresent(IdempotentMethods.SECURITY_CONTEXT, classLoader));
    }

    /**
     * Runs {@code workflow} as request {@code fingerprint} under {@code key} for {@code operation}, scoped
     * to the calling principal (with Spring Security on the class path): the first call runs the steps,
     * a retry after a crash or a failure resumes after the last recovery point, a retry after completion
     * replays the steps' outputs.
     *
     * @param operation {@code [A-Za-z0-9._-]}, at most 65 characters when scoped per principal (the scope
     *     adds 35 to it, and an operation has at most 100)
     * @param key the client's idempotency key; {@code null} runs the workflow without one
     * @param fingerprint the parts that make the request this request, by name
     * @return each step's output, by phase, in step order
     * @throws IllegalTransactionStateException if a transaction is active on the calling thread; nothing
     *     was reserved
     * @throws StepOutcomeUnknownException if a remote step whose policy is to stop was started by an
     *     earlier holder that never reached its recovery point
     * @throws dev.idemlab.idempotency.IdempotencyKeyReuseException if the key was used with another
     *     fingerprint
     * @throws dev.idemlab.idempotency.IdempotencyInProgressException if another holder runs the request
     *     (under {@code idempotency.policy=raise}, or past the wait), or an ask-first step's earlier call may
     *     still land
     * @throws dev.idemlab.idempotency.IdempotencyFencedException if this holder's key was taken over
     * @throws Exception what a step threw, unchanged; nothing of that step landed
     */
    public Workflow.Progress run(String operation, String key, Map<String, ?> fingerprint, Workflow workflow)
            throws Exception {
        return run(operation, key, fingerprint, workflow, scoping);
    }

    /**
     * As {@link #run}, with the key global rather than scoped per principal: every caller's {@code key}
     * reaches the same record, as a {@link GlobalKey} method's does.
     *
     * @throws Exception as {@link #run} does
     */
    public Workflow.Progress runGlobal(String operation, String key, Map<String, ?> fingerprint, Workflow workflow)
            throws Exception {
        return run(operation, key, fingerprint, workflow, false);
    }

    private Workflow.Progress run(String operation, String key, Map<String, ?> fingerprint, Workflow workflow,
                                  boolean scoped) throws Exception {
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(workflow, "workflow");
        String where = "IdempotentWorkflows.run(" + operation + ")";
        if (scoped && operation.length() > PrincipalScope.LONGEST_OPERATION) {
            throw new IllegalArgumentException(where + ": the operation has " + operation.length() + " characters, "
                    + "but a key scoped per principal adds 35 to it and an operation has at most 100, so a scoped "
                    + "operation has at most " + PrincipalScope.LONGEST_OPERATION + "; shorten it, or use runGlobal "
                    + "if its keys are global on purpose");
        }
        refuseInsideTransaction(where);
        IdempotentCall call = IdempotentCall.of(scoped ? PrincipalScope.operationOf(operation) : operation, key,
                Fingerprint.ofFields(fingerprint));
        if (key == null && loggedWithoutKey.add(operation)) {
            LOG.warn("{} was called with a null key: the workflow ran without idempotency and without recovery "
                    + "points, so a retry runs every step again (counted as BYPASSED; logged once per operation)",
                    where);
        }
        return coordinator.execute(call, PROGRESS, binding.effects().workflow(workflow,
                new SpringStepTransactions(binding, where)));
    }

    /**
     * Refuses a run while a transaction is active on this thread, or a connection of the store's
     * {@code DataSource} is bound to it, before anything is reserved.
     */
    private void refuseInsideTransaction(String where) {
        if (TransactionSynchronizationManager.isActualTransactionActive()
                || TransactionSynchronizationManager.hasResource(binding.dataSource())) {
            throw new IllegalTransactionStateException(where + " was called inside a transaction"
                    + LocalEffectTransactions.nameOf(TransactionSynchronizationManager.getCurrentTransactionName())
                    + ": each local step of a workflow opens its own transaction and commits its recovery point "
                    + "before the next step runs, and cannot join its caller's (a rollback there would undo "
                    + "recovery points and a completion already answered); call it outside any transaction, or "
                    + "from a method that is not @Transactional");
        }
    }
}
