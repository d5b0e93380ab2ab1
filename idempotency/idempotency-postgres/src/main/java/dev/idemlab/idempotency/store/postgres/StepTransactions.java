package dev.idemlab.idempotency.store.postgres;

import java.sql.Connection;

/**
 * How the local steps of a {@link Workflow} get their transaction: each step's effect, the check that its
 * holder's fence still holds the key, and its recovery point are written in one transaction that this
 * opens, commits when they were written, and rolls back when anything threw. By default a connection of the
 * store's pool ({@link LocalEffects#workflow(Workflow)}); through the Spring Boot starter, a transaction of
 * the application's transaction manager, bound to the holder's thread, so that the step's
 * {@code JdbcTemplate} statements join it.
 *
 * <p>What an implementation must give a step: a connection to the store's own database (the store's pool,
 * or the {@code DataSource} the store was opened with), in a transaction it opened for this step alone
 * (never one its caller had open: the recovery point must commit before the next step runs), at READ
 * COMMITTED, since the holder's renewals commit meanwhile on other connections. A commit that throws ends
 * the run with that error; what landed is then told by the recovery point, written in the same transaction:
 * a retry resumes after the step if it landed and runs it again if it did not.
 */
@FunctionalInterface
public interface StepTransactions {

    /**
     * Runs {@code work} in a new transaction and commits it once {@code work} returned.
     *
     * @param phase the step's phase, to name the transaction by
     * @return what {@code work} returned
     * @throws Exception what {@code work} threw, unchanged, after the transaction was rolled back; or what
     *     the commit threw
     */
    <T> T inTransaction(String phase, Work<T> work) throws Exception;

    /** What one step writes, on the transaction's connection; it never commits. */
    @FunctionalInterface
    interface Work<T> {
        T run(Connection connection) throws Exception;
    }
}
