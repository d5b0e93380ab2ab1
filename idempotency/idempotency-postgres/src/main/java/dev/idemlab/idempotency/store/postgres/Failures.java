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
            if (t instanceof SQLException sql && ("08001".equals(sql.getSQLState())
                    || "08004".equals(sql.getSQLState()))) {
                return Failure.UNREACHABLE; // could not connect, or the server refused the connection
            }
        }
        // A connection lost mid-statement (08006, or 57P01 when a backend is terminated) is not an outage:
        // the server may be up and the statement may have landed. A pool timeout with no connection
        // failure behind it means every connection is busy: a stall.
        return failure instanceof SQLTransientConnectionException ? Failure.TIMEOUT : Failure.OTHER;
    }
}
