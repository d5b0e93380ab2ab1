package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.ContextualAction;
import dev.idemlab.idempotency.IdempotencyContext;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.LocalTransaction;
import dev.idemlab.idempotency.spi.StoredResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.IllegalTransactionStateException;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.UnexpectedRollbackException;
import org.springframework.transaction.support.DefaultTransactionDefinition;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import java.sql.Connection;
import java.time.Duration;

/**
 * One transaction of the application's transaction manager, at READ COMMITTED, in which a
 * {@link LocalEffect} method writes its effect and the store's complete function completes the key's
 * record, token-checked, on the transaction's own connection before the transaction manager commits.
 * The method's {@code JdbcTemplate} and {@code @Transactional} code join it, since it is bound to the
 * holder's thread. Completing last keeps the record's row unlocked while the method runs, so the holder's
 * renewals (on other connections of the pool) pass. Not thread-safe: one per call, on the holder's thread.
 */
final class SpringEffectTransaction implements LocalTransaction<Object, Exception> {

    private static final Logger LOG = LoggerFactory.getLogger(SpringEffectTransaction.class);

    private final LocalEffectTransactions.Binding binding;
    private final String name;
    private final ContextualAction<Object, Exception> action;
    private final TransactionStatus status;
    private final CommitOutcome outcome;

    private SpringEffectTransaction(LocalEffectTransactions.Binding binding, String name,
                                    ContextualAction<Object, Exception> action, TransactionStatus status,
                                    CommitOutcome outcome) {
        this.binding = binding;
        this.name = name;
        this.action = action;
        this.status = status;
        this.outcome = outcome;
    }

    /**
     * Opens a new transaction for {@code action}, named {@code name}.
     *
     * @throws IdempotencyStoreException if the transaction manager could not open one; nothing ran
     */
    static SpringEffectTransaction begin(LocalEffectTransactions.Binding binding, String name,
                                         ContextualAction<Object, Exception> action) {
        DefaultTransactionDefinition definition = new DefaultTransactionDefinition(
                TransactionDefinition.PROPAGATION_REQUIRED);
        // Each statement of the method and of the completion reads the newest committed rows, the holder's
        // renewals included; REPEATABLE READ would fail the completion as a serialization conflict.
        definition.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
        definition.setName(name);
        TransactionStatus status;
        try {
            status = binding.transactions().getTransaction(definition);
        } catch (RuntimeException e) {
            throw new IdempotencyStoreException(binding.store(), null, name + ": the transaction manager could not "
                    + "begin its transaction: " + e.getMessage(), e);
        }
        if (!status.isNewTransaction()) {
            // The advice refused a call inside a transaction already; this is the last line before joining one.
            binding.transactions().rollback(status);
            throw new IllegalTransactionStateException(name + " would have joined a transaction it did not open");
        }
        if (!TransactionSynchronizationManager.isSynchronizationActive()) {
            binding.transactions().rollback(status);
            throw new IllegalTransactionStateException(name + ": its transaction has no synchronization, which "
                    + "tells a commit that landed from one that rolled back; keep the transaction manager's "
                    + "synchronization on");
        }
        CommitOutcome outcome = new CommitOutcome();
        TransactionSynchronizationManager.registerSynchronization(outcome);
        return new SpringEffectTransaction(binding, name, action, status, outcome);
    }

    /**
     * Runs the method in the transaction.
     *
     * @throws UnexpectedRollbackException if the method returned but marked the transaction rollback-only:
     *     its effect is rolled back, so no record may say it happened
     */
    @Override
    public Object run(IdempotencyContext context) throws Exception {
        Object value = action.run(context);
        if (status.isRollbackOnly()) {
            throw new UnexpectedRollbackException(name + " returned, but its transaction was marked rollback-only: "
                    + "its effect is rolled back and no record is stored, so a retry with the same key runs it again");
        }
        return value;
    }

    @Override
    public boolean complete(String namespace, String token, String fingerprint, StoredResult result, Duration ttl) {
        Connection connection = DataSourceUtils.getConnection(binding.dataSource());
        boolean completed;
        try {
            completed = binding.effects().completeIn(connection, namespace, token, fingerprint, result, ttl);
        } finally {
            DataSourceUtils.releaseConnection(connection, binding.dataSource());
        }
        if (!completed) {
            binding.transactions().rollback(status);
            return false;
        }
        commit(namespace);
        return true;
    }

    /** Commits the method's effect without a record: a call that runs without a reservation. */
    void commitAlone() {
        commit(null);
    }

    /**
     * Commits through the transaction manager, so that its synchronizations run, and tells from how the
     * transaction completed (see {@link CommitOutcome}) what landed when {@code commit()} threw.
     *
     * @throws RuntimeException the commit's own error, unchanged, when the transaction rolled back (a
     *     before-commit synchronization threw, the server refused the commit: a deferred constraint, a
     *     deadlock): nothing landed, as a plain {@code @Transactional} reports it
     * @throws IdempotencyStoreException when the connection failed under the commit: effect and record
     *     landed together or not at all, which a retry with the same key finds out
     */
    private void commit(String namespace) {
        try {
            binding.transactions().commit(status);
        } catch (RuntimeException e) {
            switch (outcome.after(e)) {
                case COMMITTED -> LOG.warn("{} committed{}, but a synchronization after the commit threw; the caller "
                        + "gets the method's result, as a retry does", name, namespace == null ? "" : " with its record",
                        e);
                case ROLLED_BACK -> throw e;
                default -> throw new IdempotencyStoreException(binding.store(), namespace, name + ": the connection "
                        + "failed while committing, so the effect" + (namespace == null ? "" : " and its record")
                        + " landed " + (namespace == null ? "or not" : "together or not at all") + ": "
                        + e.getMessage(), e);
            }
        }
    }

    /** Rolls back whatever was not committed; the transaction manager gives the connection back. Never throws. */
    @Override
    public void close() {
        if (status.isCompleted()) {
            return;
        }
        try {
            binding.transactions().rollback(status);
        } catch (RuntimeException e) {
            LOG.warn("rolling back {}'s transaction failed; the transaction manager released its connection", name, e);
        }
    }
}
