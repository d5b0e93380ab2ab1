package dev.idemlab.idempotency.spring;

import org.springframework.transaction.support.TransactionSynchronization;

import java.io.IOException;
import java.sql.SQLException;

/**
 * How the commit of a {@link LocalEffect}'s transaction ended, read from the transaction manager itself:
 * a synchronization registered when the transaction begins, told the completion's status. What
 * {@code commit()} throws does not say it. An after-commit synchronization runs inside {@code commit()}
 * once the database committed, and its exception propagates: landed. A before-commit synchronization
 * that throws, a deferred constraint, a deadlock found at commit: rolled back, whatever the exception.
 * Not thread-safe: one per transaction, on the holder's thread.
 */
final class CommitOutcome implements TransactionSynchronization {

    /** What the effect and the record did. */
    enum Landed {
        /** The database committed both. */
        COMMITTED,
        /** Neither landed: the transaction rolled back. */
        ROLLED_BACK,
        /** The connection failed while committing: both landed or neither, nobody here knows which. */
        UNKNOWN
    }

    /** Causes followed down a chain, against a chain that loops. */
    private static final int DEPTH = 32;

    private Integer completion;

    @Override
    public void afterCompletion(int status) {
        completion = status;
    }

    /**
     * What landed, once {@code commit()} threw {@code failure}. The transaction manager reports
     * {@code STATUS_UNKNOWN} when the database's commit itself failed; then an error the server answered
     * with (any SQLSTATE but a connection failure, class 08, or the server ending the connection, 57P)
     * means it rolled back, since PostgreSQL ends a transaction whose COMMIT fails without committing it;
     * only a connection that failed under the commit leaves the outcome unknown.
     */
    Landed after(RuntimeException failure) {
        if (completion == null) {
            return Landed.UNKNOWN;
        }
        return switch (completion) {
            case STATUS_COMMITTED -> Landed.COMMITTED;
            case STATUS_ROLLED_BACK -> Landed.ROLLED_BACK;
            default -> refusedByTheServer(failure) ? Landed.ROLLED_BACK : Landed.UNKNOWN;
        };
    }

    /** Whether the server answered {@code failure}'s statement with an error, over a connection that held. */
    static boolean refusedByTheServer(Throwable failure) {
        boolean answered = false;
        Throwable cause = failure;
        for (int depth = 0; cause != null && depth < DEPTH; depth++, cause = cause.getCause()) {
            if (cause instanceof IOException) {
                return false;
            }
            if (cause instanceof SQLException sql && sql.getSQLState() != null) {
                String state = sql.getSQLState();
                if (state.startsWith("08") || state.startsWith("57P")) {
                    return false;
                }
                answered = true;
            }
        }
        return answered;
    }
}
