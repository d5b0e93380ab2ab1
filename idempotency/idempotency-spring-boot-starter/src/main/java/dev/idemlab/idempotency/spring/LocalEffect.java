package dev.idemlab.idempotency.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks an {@link dev.idemlab.idempotency.Idempotent @Idempotent} method whose effect lives in the
 * idempotency store's own PostgreSQL database (an order row, a ledger entry written through the
 * application's {@code DataSource}): the key's record is completed in the method's own transaction, so
 * that the effect and the record commit together or not at all. Put it beside {@code @Idempotent}, or on
 * another declaration of the same method ({@code @Idempotent} on an interface, {@code @LocalEffect} on
 * its implementation, or the reverse); a {@code @LocalEffect} whose method carries {@code @Idempotent} on
 * no declaration fails when its bean's proxy is made.
 *
 * <pre>{@code
 * @Idempotent(operation = "orders.place", fingerprint = {"request.sku", "request.quantity"})
 * @LocalEffect
 * public PlacedOrder place(@IdempotencyKey String key, OrderRequest request) {
 *     long id = jdbc.queryForObject("insert into orders ... returning id", Long.class, ...);
 *     return new PlacedOrder(id);
 * }
 * }</pre>
 *
 * <p>What the advice does for such a method:
 * <ul>
 *   <li>The reservation commits on its own first, so that identical requests see it at once. The holder
 *       then opens a transaction with the application's {@code PlatformTransactionManager} on the store's
 *       {@code DataSource}, at READ COMMITTED; the method runs in it, so its {@code JdbcTemplate}
 *       statements and a {@code @Transactional} of its own (ordered inside the advice) join it. After the
 *       method returned, the token-checked completion of the record runs on that transaction's
 *       connection, and the transaction manager commits both.</li>
 *   <li>The method throws (any exception, checked ones included) or marks its transaction rollback-only:
 *       effect and record roll back, the key is released, and a retry runs the method once. Rollback-only
 *       surfaces as {@link org.springframework.transaction.UnexpectedRollbackException}.</li>
 *   <li>What landed when the commit throws is read from how the transaction manager completed the
 *       transaction, not from the exception. Rolled back (a before-commit synchronization threw, or the
 *       server answered the COMMIT with an error: a deferred constraint, a deadlock): nothing landed, the
 *       error is rethrown unchanged as a plain {@code @Transactional} would, and a retry runs the method
 *       once. Committed, but an after-commit synchronization threw: effect and record landed, so the
 *       caller gets the method's result, as a retry replays it, and the synchronization's exception is
 *       logged at WARN. Only a connection that failed under the commit (SQLSTATE class 08, or the server
 *       ending the connection, 57P) leaves the outcome unknown:
 *       {@link dev.idemlab.idempotency.IdempotencyStoreUnavailableException} (503); effect and record
 *       landed together or not at all, and a retry with the same key replays them or runs once.</li>
 *   <li>A holder whose key was taken over (its lease ran out while it was paused, and another call
 *       reserved the key) completes nothing: its transaction rolls back, effect included, and it gets
 *       {@link dev.idemlab.idempotency.IdempotencyFencedException}.</li>
 *   <li>Called while a transaction is active (its caller's), the method is refused at once with
 *       {@link org.springframework.transaction.IllegalTransactionStateException}, before any
 *       reservation: joining the caller's transaction would tie the record to a commit the method does
 *       not control. So is every call of a method with a {@code @Transactional} of its own when
 *       {@code idempotency.aspect.order} puts the advice inside the transaction advice.</li>
 *   <li>Without a reservation (no key, or a coordinator failing open when the reserve failed) the method
 *       commits on its own, as any action runs then: set {@code idempotency.store-failure-mode:
 *       fail-closed} for local effects. Its commit ends as above, a transaction that cannot begin or an
 *       unknown outcome as {@link dev.idemlab.idempotency.IdempotencyStoreUnavailableException}.</li>
 * </ul>
 *
 * <p>Refused at startup (or when the bean's proxy is made), naming the rule: a store other than the
 * starter's PostgreSQL one, a transaction manager on another {@code DataSource} (or none, or several
 * without a primary, or one with transaction synchronization off), a method that returns a stage, and a
 * {@code @Transactional} on the method that would not join the advice's transaction ({@code REQUIRES_NEW},
 * {@code NOT_SUPPORTED}, {@code NEVER}), asks another isolation than READ COMMITTED, or names a
 * transaction manager other than the one the advice's transaction runs on. That {@code @Transactional}
 * is read as the application's transaction advice reads it (its {@code TransactionAttributeSource}), so
 * on protected and package-private methods too.
 *
 * <p>Where it stops: only writes through the transaction manager's connection are covered, so the same
 * database and the same {@code DataSource} as the store; a read replica, another pool or a remote call
 * made inside the method is not undone by a rollback (pass the context's downstream key to a provider).
 * A coordinator bean of the application's own must keep its records in the {@code IdempotencyStore}
 * bean, which is the store the completion is written to.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface LocalEffect {
}
