package dev.idemlab.examples.payments;

import dev.idemlab.examples.payments.OrdersTableShape.OrdersTableMismatchException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Says why the sample did not start when its orders table has another shape, in Spring Boot's
 * "APPLICATION FAILED TO START" report rather than a stack trace: the table, the column, what to do.
 */
class OrdersTableFailureAnalyzer extends AbstractFailureAnalyzer<OrdersTableMismatchException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, OrdersTableMismatchException cause) {
        return new FailureAnalysis(cause.getMessage(),
                "Drop or rename the table " + cause.table() + " (it lacks " + cause.column() + "), or point "
                        + "spring.datasource.url at a database where the sample can create its own.", cause);
    }
}
