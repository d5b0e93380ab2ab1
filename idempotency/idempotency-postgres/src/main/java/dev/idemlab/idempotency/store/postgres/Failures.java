package dev.idemlab.idempotency.store.postgres;

import dev.idemlab.idempotency.spi.IdempotencyStoreException.Failure;

import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;

/** Sorts what JDBC threw into the kinds the coordinator acts on. Stateless and thread-safe. */
final class Failures {

    private Failures() { }

    static Failure classify(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SocketTimeoutException) {
                return Failure.TIMEOUT; // the socket timeout: the server stalled mid-statement
            }
            if (t instanceof SQLException sql && ("57014".equals(sql.getSQLState())
                    || "55P03".equals(sql.getSQLState()))) {
                return Failure.TIMEOUT; // cancelled by statement_timeout, or lock_timeout: nothing committed
            }
        }
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof ConnectException || t instanceof NoRouteToHostException
                    || t instanceof UnknownHostException) {
                return Failure.UNREACHABLE;
            }
            if (t instanceof SQLException sql && sql.getSQLState() != null
                    && (sql.getSQLState().startsWith("08") || sql.getSQLState().startsWith("57P"))) {
                return Failure.UNREACHABLE; // connection exceptions; the server shutting down or crashed
            }
        }
        // A pool timeout with no connection failure behind it: every connection is busy, a stall.
        return failure instanceof SQLTransientConnectionException ? Failure.TIMEOUT : Failure.OTHER;
    }
}
