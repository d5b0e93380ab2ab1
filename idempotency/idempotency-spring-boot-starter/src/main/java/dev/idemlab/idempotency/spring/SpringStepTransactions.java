package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.store.postgres.StepTransactions;
import org.springframework.jdbc.datasource.DataSourceUtils;

import java.sql.Connection;

/**
 * The local steps of a workflow run through {@link IdempotentWorkflows}, each in a transaction of the
 * application's transaction manager on the store's {@code DataSource}: the same transaction a
 * {@link LocalEffect} method runs in ({@link SpringEffectTransaction}: READ COMMITTED, refused if it would
 * join a transaction it did not open, rollback-only refused, its commit read from how the transaction
 * manager completed it). The connection handed to the step is the transaction's, bound to the holder's
 * thread, so the step's {@code JdbcTemplate} statements (and a {@code @Transactional} that joins) write in
 * it, and its recovery point commits with them. Immutable and thread-safe; each step's transaction is on
 * the calling thread.
 */
final class SpringStepTransactions implements StepTransactions {

    private final LocalEffectTransactions.Binding binding;
    private final String name;

    /** @param name how a step's transaction is named: the workflow's operation */
    SpringStepTransactions(LocalEffectTransactions.Binding binding, String name) {
        this.binding = binding;
        this.name = name;
    }

    @Override
    public <T> T inTransaction(String phase, Work<T> work) throws Exception {
        SpringEffectTransaction transaction = SpringEffectTransaction.begin(binding, name + " step " + phase,
                context -> {
                    Connection connection = DataSourceUtils.getConnection(binding.dataSource());
                    try {
                        return work.run(connection);
                    } finally {
                        DataSourceUtils.releaseConnection(connection, binding.dataSource());
                    }
                });
        try (transaction) {
            @SuppressWarnings("unchecked")
            T value = (T) transaction.run(null);
            // A commit that rolled back rethrows its error; one whose outcome is unknown is a store error: a
            // retry reads from the step's recovery point, written in the same transaction, whether it landed.
            transaction.commitAlone();
            return value;
        }
    }
}
